import torch
from torch import nn
TRAIN = True
class M(nn.Module):
    """Per-utterance feature standardization; zero-padded (silent) frames give a constant row."""
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(8, 8)
    def forward(self, x, mask):
        h = self.l(x) * mask
        h = (h - h.mean(-1, keepdim=True)) / (h.std(-1, keepdim=True) + 1e-5)
        return h.pow(2).sum()
def make():
    mask = torch.ones(5, 1); mask[3:] = 0
    return M(), (torch.randn(5, 8), mask)
