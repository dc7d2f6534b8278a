import torch
from torch import nn
import torch.nn.functional as F
TRAIN = True
class M(nn.Module):
    """Per-token embeddings, padded positions zeroed by the mask, then L2-normalized (sentence-transformers style)."""
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)
    def forward(self, x, mask):
        h = self.proj(x) * mask          # padded rows are exactly zero
        return F.normalize(h, dim=-1).sum()
def make():
    mask = torch.ones(6, 1); mask[4:] = 0
    return M(), (torch.randn(6, 8), mask)
