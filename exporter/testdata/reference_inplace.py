"""A model that fails in PyTorch itself: sigmoid's output, saved for its backward, is then
changed in place, so `loss.backward()` raises "one of the variables needed for gradient
computation has been modified by an inplace operation". The exporter printed a Python
traceback through compute_expected; it now exits 2 with the user's line and PyTorch's message."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
    def forward(self, x):
        h = torch.sigmoid(self.fc(x))
        h.mul_(2)
        return h.sum()
def make():
    return M(), (torch.randn(4, 6),)
