"""GELU, exact (erf) and tanh-approximated, over 4096 x 1024; inference."""
import torch
import torch.nn.functional as F

NAME = "gelu_variants"


def f(x):
    return F.gelu(x) + F.gelu(x, approximate="tanh")


def make():
    return f, (torch.randn(4096, 1024),)
