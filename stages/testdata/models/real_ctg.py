"""Issue 15: a model of the kind users bring (exported by exporter/gcdbg_export.py with --train)."""
import torch
from torch import nn
NAME = "ctg"
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 10)
    def forward(self, x):
        s = self.fc(x)
        c = torch.cumsum(s.softmax(-1), dim=-1)
        v, i = torch.topk(s, 3, dim=-1)
        g = torch.gather(c, 1, i)
        return (g * v).sum() + c.amax(-1).sum()
def make():
    return M(), (torch.randn(4, 6),)
