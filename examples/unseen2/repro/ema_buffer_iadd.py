"""A user-written buffer update in forward (EMA of the batch mean, a step counter)."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.register_buffer("ema", torch.zeros(8))
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
    def forward(self, x):
        h = self.fc(x)
        self.ema.mul_(0.9).add_(h.detach().mean(0) * 0.1)
        self.steps += 1
        return (h - self.ema).pow(2).mean()
def make():
    return M(), (torch.randn(16, 8),)
