"""A MobileNetV2-style inverted residual block in training, large enough
that the interpreter's elementwise loops, reductions and convolutions split
across the cores (tensors of ~10^5 elements): a 1x1 expansion conv,
BatchNorm2d in training (running stats updated), ReLU6, a 3x3 depthwise
conv, BatchNorm2d, ReLU6, a 1x1 projection, BatchNorm2d, the residual add,
global average pool, Linear with GELU, Linear, cross-entropy. The float64
reference runs of the verdict are compared on it, split across the cores
and on one core (interp/fast_test.go)."""
import torch
import torch.nn as nn

NAME = "convbn_train"
TRAIN = True


class Block(nn.Module):
    def __init__(self, c=8, hidden=48, classes=10):
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(c, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6())
        self.dw = nn.Sequential(nn.Conv2d(hidden, hidden, 3, 1, 1, groups=hidden, bias=False),
                                nn.BatchNorm2d(hidden), nn.ReLU6())
        self.project = nn.Sequential(nn.Conv2d(hidden, c, 1, bias=False), nn.BatchNorm2d(c))
        self.head = nn.Sequential(nn.Linear(c, 64), nn.GELU(), nn.Linear(64, classes))

    def forward(self, x, target):
        y = x + self.project(self.dw(self.expand(x)))
        y = y.mean(dim=(2, 3))
        return nn.functional.cross_entropy(self.head(y), target)


def make():
    torch.manual_seed(0)
    return Block(), (torch.randn(4, 8, 24, 24), torch.randint(0, 10, (4,)))
