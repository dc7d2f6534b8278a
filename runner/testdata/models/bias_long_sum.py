"""A raw-audio front end in training: Conv1d(1, 32, 9) with a bias straight into BatchNorm1d
(training: that bias's gradient is zero in exact arithmetic, PyTorch's float32 value is rounding
of sums over 8 x 8000 positions), ReLU, Conv1d(32, 32, 3) whose bias gradient sums 64,000 masked
terms, global mean, Linear, cross-entropy. PyTorch 1.13 sums these long reductions with errors
~1e-5 of the values (vectorised lanes accumulating in order), far above a cascade of 16-term
levels: a simulated float32 run that modelled them as such made the reference check call
PyTorch's own rounding a difference in semantics (both biases, 80-180x)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "bias_long_sum"
TRAIN = True


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(1, 32, 9, padding=4)
        self.bn = nn.BatchNorm1d(32)
        self.c2 = nn.Conv1d(32, 32, 3, padding=1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x, y):
        h = F.relu(self.bn(self.c1(x)))
        h = F.relu(self.c2(h)).mean(-1)
        return F.cross_entropy(self.fc(h), y)


def make():
    return Net(), (torch.randn(8, 1, 8000), torch.randint(0, 10, (8,)))
