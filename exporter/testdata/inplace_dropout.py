"""An in-place nn.Dropout in training: the recorder peeks the mask before the node overwrites its input."""
import torch
from torch import nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.drop = nn.Dropout(0.4, inplace=True)
    def forward(self, x):
        return torch.tanh(self.drop(self.fc(x) * 1.0))
def make():
    return M(), (torch.randn(5, 6),)
