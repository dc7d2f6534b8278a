"""An EMA of a parameter written in place inside torch.no_grad() in forward (BYOL target update
in forward): refused, saying to update it outside forward or keep it in a buffer."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.online = nn.Linear(6, 6)
        self.target = nn.Linear(6, 6)
    def forward(self, x):
        with torch.no_grad():
            self.target.weight.mul_(0.9).add_(0.1 * self.online.weight)
        return (self.online(x) * self.target(x)).sum()
def make():
    return M(), (torch.randn(4, 6),)
