"""Common ops in one small training model: einsum attention, F.pad, ConvTranspose2d,
F.interpolate (nearest), torch.where, chunk, SiLU, GELU(tanh), BatchNorm1d, masked_fill."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "misc_ops"
TRAIN = True

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 4, 2, stride=2)
        self.conv = nn.Conv2d(4, 8, 3)
        self.bn = nn.BatchNorm1d(8)
        self.act = nn.GELU(approximate="tanh")
    def forward(self, x, q):
        y = self.up(x)                                   # 2,4,8,8 -> 2,4,16,16
        y = F.interpolate(y, scale_factor=0.5, mode="nearest")
        y = F.pad(y, (1, 1, 1, 1))
        y = F.silu(self.conv(y))                         # 2,8,8,8
        a, b = y.chunk(2, dim=1)
        y = torch.where(a > 0, a, b)
        z = self.act(self.bn(y.mean([2, 3]).repeat(1, 2)))
        s = torch.einsum("bid,bjd->bij", q, q)
        s = s.masked_fill(torch.triu(torch.ones(5, 5, dtype=torch.bool), 1), float("-inf"))
        return z.sum() + s.softmax(-1).sum()

def make():
    return M(), (torch.randn(2, 4, 8, 8), torch.randn(2, 5, 6))
