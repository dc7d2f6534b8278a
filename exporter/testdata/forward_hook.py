"""A forward hook that changes a module's output (scales it): torch.fx would drop it."""
import torch
import torch.nn as nn

TRAIN = True


def make():
    m = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    m[2].register_forward_hook(lambda mod, inp, out: out * 2)
    return m, (torch.randn(3, 4),)
