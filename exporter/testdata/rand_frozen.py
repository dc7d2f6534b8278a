"""A draw fx cannot record (Tensor.uniform_ of a constant, run once while tracing): refused."""
import torch


def f(x):
    return x + torch.empty(3).uniform_()


def make():
    return f, (torch.zeros(3),)
