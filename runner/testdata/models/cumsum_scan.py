# cumsum and cumprod compiled as linear scans: a long running total (16,384 steps, the size
# whose masked [n, n] decomposition needed a 4.3e9-element tensor) and a long running product,
# a cumsum along a middle dim of a strided (transposed) view whose gradient is the reverse
# cumsum, an int cumsum (int64 result), a cumsum to float64, and a cumprod of a parameter with
# rows holding no zero, one zero and two zeros (cumprod_backward's three cases); in training so
# the grads are checked.
import torch
from torch import nn

NAME = "cumsum_scan"
TRAIN = True


class M(nn.Module):
    def __init__(self, n=16384):
        super().__init__()
        self.w = nn.Parameter(torch.randn(5, 6, 7))
        p = torch.randn(3, 6)
        p[1, 2] = 0.0
        p[2, 1] = 0.0
        p[2, 4] = 0.0
        self.p = nn.Parameter(p)
        self.register_buffer("steps", torch.arange(1, n + 1, dtype=torch.float32))

    def forward(self, rewards, counts):
        returns = torch.cumsum(rewards, dim=-1) / self.steps
        growth = torch.cumprod(1.0 + rewards * 1e-4, dim=-1)
        h = torch.cumsum(self.w.transpose(0, 2) * 2.0, dim=1).tanh()
        c = counts.cumsum(0)
        d = torch.cumsum(self.w, 2, dtype=torch.float64)
        e = torch.cumprod(self.p, dim=1)
        return returns, growth, h, c, d, e


def make():
    return M(), (torch.rand(4, 16384) + 0.5, torch.randint(-5, 5, (9, 3), dtype=torch.int32))
