"""torch.randperm as mixup and shuffles draw it, in training: a permutation of the batch by a
traced size (randperm(x.size(0), device=x.device)) mixing inputs and targets, and one of a
constant size (randperm(6)) shuffling features: graph nodes whose draws the reference run records."""
import torch
from torch import nn
import torch.nn.functional as F
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)
    def forward(self, x, y, lam: float):
        perm = torch.randperm(x.size(0), device=x.device)
        cols = torch.randperm(6)
        out = self.fc(lam * x + (1 - lam) * x[perm][:, cols])
        loss = lam * F.cross_entropy(out, y) + (1 - lam) * F.cross_entropy(out, y[perm])
        return loss, perm
def make():
    return M(), (torch.randn(8, 6), torch.randint(0, 3, (8,)), 0.7)
