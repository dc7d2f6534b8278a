"""Factories of Python numbers inside forward (torch.arange(T) with a constant T, torch.zeros(4, 8),
dtype=/device= kwargs, traced sizes torch.zeros(x.shape[0], 8) and torch.ones(x.shape), torch.full, torch.scalar_tensor, zeros_like/ones_like/full_like of a constant
tensor): fx would run each while tracing and freeze its result into a _tensor_constant; the exporter
records them as graph nodes, so gcdbg computes them. torch.empty stays frozen (unspecified values)."""
import torch
from torch import nn

NAME = "factory_const"
T = 6


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.k = torch.tensor([1.5, -2.0, 3.0])  # a plain tensor attribute: a constant of the trace

    def forward(self, x):
        pos = torch.arange(T)  # int64
        half = torch.arange(0.5, 4.0, 0.37)  # the default dtype, PyTorch's rounding
        steps = torch.arange(-3, 9, 2, dtype=torch.float64, device=torch.device("cpu"), requires_grad=False)
        z = torch.zeros(x.shape[0], 8)  # a traced size
        z = z + torch.zeros(4, 8)
        o = torch.ones(x.shape, dtype=torch.float64)  # a traced shape
        f = torch.full((4, 1), 2.5)
        fi = torch.full((2,), 7)  # int64, as PyTorch infers from an int fill
        s = torch.scalar_tensor(3.0, requires_grad=False)
        y = self.lin(x + z) + pos[:4].unsqueeze(1) * s + f
        return (y, o * 2, half, steps, fi, torch.zeros_like(self.k) + torch.ones_like(self.k),
                torch.full_like(self.k, -1.25, dtype=torch.float64))


def make():
    return M(), (torch.randn(4, 8),)
