"""Star-unpacking a traced size: ESPnet's rel_shift `torch.zeros((*x.size()[:3], 1), ...)` and
guided-diffusion's `b, c, *spatial = x.shape` / `.reshape(b, c, *spatial)`. The exporter refuses both
("Proxy object cannot be iterated"); its advice names the fixed-count form (`B, T, C = x.shape`),
which works, although x.ndim (and so the number of items) is known while tracing."""
import torch
import torch.nn as nn

NAME = "r8_fx_star_size"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(8, 8)

    def forward(self, x):
        x = self.l(x)
        zero_pad = torch.zeros((*x.size()[:2], 1), dtype=x.dtype)
        return torch.cat([zero_pad, x], -1).sum()


def make():
    return M(), (torch.randn(2, 3, 8),)
