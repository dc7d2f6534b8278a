"""The gradient of sum(softmax(x)) is exactly zero in exact arithmetic:
PyTorch's float32 gradient is pure rounding noise, gcdbg's float64
reference nearly zero. The verdict must call the compiled gradient a match
(it is as close to the truth as PyTorch is) without calling the reference
wrong."""
import torch

NAME = "softmax_sum"


def f(x):
    return torch.softmax(x * 3.0, dim=-1).sum(dim=-1)


def make():
    x = torch.randn(16, 4096, requires_grad=True)
    return f, (x,)
