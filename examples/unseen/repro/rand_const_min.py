"""Minimal: a random draw whose sizes are Python ints (torch.rand(3)) is frozen by fx into a
_tensor_constant at trace time; the exporter writes it as a constant while expected.outputs come
from a separate run that drew other numbers, so gcdbg reports MISMATCH against PyTorch."""
import torch

NAME = "rand_const_min"

def f(x):
    return x + torch.rand(3)

def make():
    return f, (torch.zeros(3),)
