"""nn.GRU bidirectional, 2 layers, batch_first; training without dropout."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(6, 10, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(20, 3)
    def forward(self, x):
        out, h = self.gru(x)
        return self.fc(out[:, -1]).sum() + h.sum()
def make():
    return M(), (torch.randn(3, 7, 6),)
