"""A data-dependent branch: the export must fail and say what to change."""
import torch
from torch import nn
class M(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x
def make():
    return M(), (torch.randn(3),)
