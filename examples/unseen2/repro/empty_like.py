"""torch.empty_like(w).scatter(0, perm, w): a common idiom to invert a permutation; refused."""
import torch
import torch.nn as nn


class M(nn.Module):
    def forward(self, x):
        v, order = torch.sort(x, descending=True)
        return torch.empty_like(v).scatter(0, order, v * 2)


def make():
    return M(), (torch.randn(16),)
