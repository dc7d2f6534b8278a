"""The largest score among the positive anchors, x[pos].max(): PyTorch raises when no anchor is positive."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)
    def forward(self, x, iou):
        s = self.fc(x).squeeze(-1)
        pos = iou > 0.5
        return s.sigmoid().mean() + s[pos].max()
def make():
    return M(), (torch.randn(32, 8), torch.rand(32))
