"""Target network under torch.no_grad() inside forward (BYOL / DQN style): no gradient flows through it."""
import torch
import torch.nn as nn
import torch.nn.functional as F
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.online = nn.Linear(8, 8)
        self.pred = nn.Linear(8, 8)
    def forward(self, x1, x2):
        p = self.pred(self.online(x1))
        with torch.no_grad():
            z = self.online(x2)          # same weights, no grad through this branch
        return (F.normalize(p, dim=-1) * F.normalize(z, dim=-1)).sum(-1).mean().neg()
def make():
    return M(), (torch.randn(16, 8), torch.randn(16, 8))
