"""Iterating a traced tensor: the export must fail and say what to change."""
import torch
from torch import nn
class M(nn.Module):
    def forward(self, x):
        return sum(r for r in x)
def make():
    return M(), (torch.randn(3, 2),)
