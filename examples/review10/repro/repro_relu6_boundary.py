import torch
from torch import nn
import torch.nn.functional as F
TRAIN = True
class M(nn.Module):
    """A zero-initialised gate through ReLU6 / Hardtanh: PyTorch's derivative at the boundary is 0."""
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(8, 8)
        self.gate = nn.Parameter(torch.zeros(8))
        self.gate2 = nn.Parameter(torch.ones(8))
    def forward(self, x):
        return (self.l(x) * (1 + F.relu6(self.gate) + F.hardtanh(self.gate2))).sum()
def make():
    return M(), (torch.randn(4, 8),)
