import torch
from torch import nn
TRAIN = True
class M(nn.Module):
    """Pairwise distances of a batch with itself (prototype / triplet losses): the diagonal is exactly 0."""
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(8, 4)
    def forward(self, x):
        z = self.l(x)
        return torch.cdist(z, z).mean()
def make():
    return M(), (torch.randn(6, 8),)
