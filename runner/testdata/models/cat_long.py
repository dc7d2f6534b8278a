# cat and stack of more than 64 inputs (loopir's maxCatInputs), compiled as a tree of cats instead
# of an eager fallback: an RNN's outputs stacked over 100 steps (nn.GRU unrolls into per-step
# cells whose states are stacked), here an elementwise tanh recurrence so the test builds fast,
# stacked on dim 1; 70 uneven slices cat back in reverse order on the last dim; a
# 66-way cat that promotes (float32 and float64 inputs). In training, so the gradients through
# the tree (select/slice backward) are checked too.
import torch
from torch import nn

NAME = "cat_long"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4) * 0.5)
        self.register_buffer("d", torch.randn(2, 1, dtype=torch.float64))

    def forward(self, x, u):
        h = x[:, 0]
        hs = []
        for t in range(100):
            h = torch.tanh(h * self.w[t % 4] + x[:, t])
            hs.append(h)
        y = torch.stack(hs, dim=1)                      # [2, 100, 4]
        ends = [sum(1 + j % 3 for j in range(i + 1)) for i in range(70)]
        parts = [u[:, e - 1 - i % 3:e] for i, e in enumerate(ends)]
        z = torch.cat(parts[::-1], dim=-1) * self.w[0, 0]   # [3, 139]
        mixed = [u[:2, i:i + 1] for i in range(65)] + [self.d]
        m = torch.cat(mixed, dim=1)                     # float64 [2, 66]
        return y, z, m


def make():
    x = torch.randn(2, 100, 4, requires_grad=True)
    u = torch.randn(3, sum(1 + i % 3 for i in range(70)), requires_grad=True)
    return M(), (x, u)
