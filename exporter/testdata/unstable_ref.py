"""A forward whose result depends on how often it was called (a Python call counter): fx freezes
the counter's value at trace time, and two identical reference runs of PyTorch give different
outputs and grads (2x, then 3x), so the exporter lists them in expected.unstable."""
import torch
import torch.nn as nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.fc(x) * float(self.calls)


def make():
    return M(), (torch.randn(5, 4),)
