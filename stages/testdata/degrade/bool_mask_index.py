"""Masked loss by boolean indexing: F.mse_loss(pred[valid], target[valid]) (data-dependent shape)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)
    def forward(self, x, t, valid):
        p = self.fc(x).squeeze(-1)
        return F.mse_loss(p[valid], t[valid])
def make():
    return M(), (torch.randn(32, 8), torch.randn(32), torch.rand(32) > 0.3)
