"""Issue 15, second round: a matrix-factorization recommender in training with
Embedding(max_norm=1.0) (L2), Embedding(max_norm, norm_type=1, padding_idx) and
F.embedding(..., max_norm=2.0) on a bias table; repeated ids, MSE loss. PyTorch renormalizes the
named rows in place under no_grad before each lookup: outputs use the renormalized rows, the
gradient reaches the weight unscaled."""
import torch
import torch.nn.functional as F
from torch import nn
NAME = "real2_emb"
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.users = nn.Embedding(10, 8, max_norm=1.0)
        self.items = nn.Embedding(12, 8, max_norm=1.5, norm_type=1.0, padding_idx=0)
        self.bias = nn.Parameter(torch.randn(12, 3))
    def forward(self, u, i, r):
        pred = (self.users(u) * self.items(i)).sum(-1) + F.embedding(i, self.bias, max_norm=2.0).sum(-1)
        return F.mse_loss(pred, r)
def make():
    u = torch.tensor([0, 3, 3, 7, 9, 2, 3])
    i = torch.tensor([1, 1, 5, 11, 0, 5, 0])
    return M(), (u, i, torch.randn(7))
