"""`B, T, C = x.shape`: tuple unpacking of a traced shape."""
import torch
from torch import nn
NAME = "unpack"
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
    def forward(self, x):
        B, T, C = x.shape
        y = self.fc(x).view(B * T, C)
        return y.sum(0)
def make():
    return M(), (torch.randn(2, 3, 4),)
