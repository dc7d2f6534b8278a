"""Issue 15: a model of the kind users bring (exported by exporter/gcdbg_export.py with --train)."""
import torch
import torch.nn.functional as F
from torch import nn
NAME = "mobilenet"
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.pw = nn.Conv2d(8, 16, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.dw = nn.Conv2d(16, 16, 3, stride=2, padding=1, groups=16, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.act = nn.ReLU6(inplace=True)
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(16, 4, 1), nn.ReLU(), nn.Conv2d(4, 16, 1), nn.Hardsigmoid())
        self.out = nn.Conv2d(16, 8, 1)
        self.hs = nn.Hardswish()
    def forward(self, x):
        h = self.act(self.bn1(self.pw(x)))
        h = self.hs(self.bn2(self.dw(h)))
        h = h * self.se(h)
        return self.out(h).sum()
def make():
    return M(), (torch.randn(2, 8, 8, 8),)
