"""A loop over a traced size (range(x.size(0)), a decoder's teacher-forcing loop): the export
must fail, name the line and say what to change."""
import torch
from torch import nn
class M(nn.Module):
    def forward(self, x):
        s = 0
        for t in range(x.size(0)):
            s = s + x[t]
        return s
def make():
    return M(), (torch.randn(3, 2),)
