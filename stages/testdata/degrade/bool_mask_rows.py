"""The first two selected rows (x[m][:2]): which rows they are depends on the mask's values."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
    def forward(self, x, s):
        x = self.fc(x)
        m = s > 0.5
        return x[m][:2].sum()
def make():
    return M(), (torch.randn(6, 4), torch.rand(6))
