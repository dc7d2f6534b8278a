"""Softmax over wide rows with a gradient: the false alarm of a fixed
tolerance (issue 14). A weighted sum of the softmax makes the gradient
small and cancellation-dominated, where PyTorch's float32 rounding is far
larger than gcdbg's float64 reference error."""
import torch

NAME = "wide_softmax"


def f(x, w):
    p = torch.softmax(x * 4.0, dim=-1)
    return (p * w).sum(dim=-1)


def make():
    x = torch.randn(32, 8192, requires_grad=True)
    w = torch.randn(32, 8192)
    return f, (x, w)
