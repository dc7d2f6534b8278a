"""Idioms that need a tensor's dtype or rank while fx traces (examples/review8 finding 8):
VARIANT=len is guided-diffusion's `while len(e.shape) < len(h.shape)`, VARIANT=finfo a mask
filled with `torch.finfo(s.dtype).min` (ESPnet, Hugging Face), VARIANT=star unpacks a shape
with a star (`B, *rest = x.shape`) and VARIANT=lensize takes len(x.size()). VARIANT=lentensor is
len() of a tensor, its first size, which stays a traced value and is refused."""
import os

import torch
import torch.nn as nn

VARIANT = os.environ.get("VARIANT", "len")


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Linear(8, 4)

    def forward(self, x, t):
        e = self.emb(t)
        if VARIANT == "len":
            while len(e.shape) < len(x.shape):
                e = e[..., None]
            return (x + e).sum()
        if VARIANT == "star":
            B, *rest = x.shape
            return (x.reshape(B, -1) * x.flatten(1)).sum() + e.sum() * len(rest)
        if VARIANT == "lensize":
            return x.sum(dim=tuple(range(1, len(x.size())))).sum() + e.sum()
        if VARIANT == "lentensor":
            return sum(x[i].sum() for i in range(len(x))) + e.sum()
        s = x.flatten(1) @ x.flatten(1).T
        return s.masked_fill(s < 0, torch.finfo(s.dtype).min).softmax(-1).sum() + e.sum()


def make():
    return M(), (torch.randn(2, 4, 3, 3), torch.randn(2, 8))
