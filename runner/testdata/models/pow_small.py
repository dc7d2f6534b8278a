"""pow by the constant exponents PyTorch's CPU kernel spells with multiplications
(2, 3, -1, -2) and sqrt (0.5, -0.5), on -0, +-inf, NaN, subnormal, huge and ordinary values."""
import torch

NAME = "pow_small"


def f(x):
    return x.pow(2), x.pow(3), x.pow(-1), x.pow(-2), x.pow(0.5), x.pow(-0.5), x.pow(1)


def make():
    x = torch.tensor([-0.0, 0.0, float("inf"), float("-inf"), float("nan"), 1e-20, 3e12, -2.5, 0.7, 1e-45, -7.0, 1e13])
    return f, (x,)
