"""Issue 15: a model of the kind users bring (exported by exporter/gcdbg_export.py with --train)."""
import torch
from torch import nn
NAME = "t5ff"
TRAIN = True
class RMS(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps
    def forward(self, x):
        var = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(var + self.eps))
class FF(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = RMS(8)
        self.wi0, self.wi1, self.wo = nn.Linear(8, 16, bias=False), nn.Linear(8, 16, bias=False), nn.Linear(16, 8, bias=False)
        self.act = nn.GELU(approximate="tanh")
    def forward(self, x):
        h = self.norm(x)
        h = self.act(self.wi0(h)) * self.wi1(h)
        return (x + self.wo(h)).abs().sum()
def make():
    return FF(), (torch.randn(2, 5, 8),)
