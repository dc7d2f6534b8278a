"""Hardtanh, ReLU6 and Hardsigmoid at their bounds in training, as models
meet them: a gate parameter initialised to zero through ReLU6 (F.relu6
and nn.ReLU6), one initialised to 1 through Hardtanh, and a ReLU6 of a
ReLU (exact zeros), plus Hardsigmoid at +-3 and the bounds of each as
inputs. PyTorch's hardtanh_backward and hardsigmoid_backward pass the
gradient only strictly inside the bounds, where clamp's passes it at them
too (review10 finding 4: the gradients took the inside slope).
"""
import torch
from torch import nn
import torch.nn.functional as F

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(8, 8)
        self.gate = nn.Parameter(torch.zeros(8))
        self.gate2 = nn.Parameter(torch.ones(8))
        self.act = nn.ReLU6()

    def forward(self, x, z):
        w = torch.arange(1.0, 9.0)
        h = self.l(x) * (1 + F.relu6(self.gate) + F.hardtanh(self.gate2) + self.act(self.gate))
        h = self.act(F.relu(h))
        b = (F.relu6(z) * w).sum() + (F.hardtanh(z) * w).sum() + (F.hardsigmoid(z) * w).sum()
        return h.sum() + b


def make():
    z = torch.tensor([-6.0, -3.0, -1.0, 0.0, 1.0, 3.0, 6.0, 2.0], requires_grad=True)
    return M(), (torch.randn(4, 8), z)
