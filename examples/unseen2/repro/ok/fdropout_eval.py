"""F.dropout(x, 0.5) (training defaults to True) in a model exported for inference: PyTorch still drops."""
import torch
import torch.nn as nn
import torch.nn.functional as F
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
    def forward(self, x):
        return F.dropout(self.fc(x), 0.5)
def make():
    return M(), (torch.randn(8, 16),)
