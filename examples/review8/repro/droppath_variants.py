"""Stochastic depth as the two most-used libraries write it, in a residual MLP block in training:
timm's drop_path (`x.new_empty(shape).bernoulli_(keep_prob)` then `random_tensor.div_(keep_prob)`)
and torchvision.ops.stochastic_depth (`torch.empty(size, dtype=..., device=...).bernoulli_(p)` then
`noise.div_(survival_rate)`). VARIANT=timm|tv picks one (default timm)."""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

VARIANT = os.environ.get("VARIANT", "timm")
NAME = "r8_droppath_" + VARIANT
TRAIN = True


def drop_path_timm(x, drop_prob: float = 0., training: bool = False, scale_by_keep: bool = True):
    if drop_prob == 0. or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


def stochastic_depth_tv(input, p: float, mode: str, training: bool = True):
    if not training or p == 0.0:
        return input
    survival_rate = 1.0 - p
    if mode == "row":
        size = [input.shape[0]] + [1] * (input.ndim - 1)
    else:
        size = [1] * input.ndim
    noise = torch.empty(size, dtype=input.dtype, device=input.device)
    noise = noise.bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


class Block(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.fc2(F.gelu(self.fc1(self.norm(x))))
        if VARIANT == "timm":
            h = drop_path_timm(h, 0.5, self.training)
        else:
            h = stochastic_depth_tv(h, 0.5, "row", self.training)
        return x + h


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Block(), Block())
        self.head = nn.Linear(64, 5)

    def forward(self, x, y):
        return F.cross_entropy(self.head(self.blocks(x).mean(1)), y)


def make():
    return M().train(), (torch.randn(16, 10, 64), torch.randint(0, 5, (16,)))
