"""Norms and standard deviations of exactly-zero rows in training, as models
meet them: sentence embeddings L2-normalized after padding rows are masked
to zero (F.normalize), pairwise distances of a batch with itself
(torch.cdist's zero diagonal), per-utterance standardization of
zero-padded frames (std of a constant row), and a p = 3 norm of a zero
row. PyTorch's norm_backward and std_backward give 0 gradient there; the
decomposition's sqrt / pow derivative is grad / 0, which the chain rule
multiplied by 0 (NaN in every gradient before it: review10's findings 1-3).
"""
import torch
from torch import nn
import torch.nn.functional as F

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 6)
        self.l = nn.Linear(8, 8)

    def forward(self, x, mask):
        h = self.proj(x) * mask  # padded rows are exactly zero
        a = F.normalize(h, dim=-1).sum()
        b = torch.cdist(h, h).sum()
        c = torch.linalg.vector_norm(h, ord=3, dim=-1).sum()
        g = self.l(x) * mask
        s = ((g - g.mean(-1, keepdim=True)) / (g.std(-1, keepdim=True) + 1e-5)).pow(2).sum()
        return a + 0.1 * b + c + 0.01 * s


def make():
    mask = torch.ones(7, 1)
    mask[4:] = 0
    return M(), (torch.randn(7, 8), mask)
