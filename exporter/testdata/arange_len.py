"""torch.arange of a traced size (GPT-style positions): a graph node whose end is the traced size."""
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Embedding(16, 4)

    def forward(self, x):
        t = x.shape[1]
        return x + self.pos(torch.arange(0, t))


def make():
    return M(), (torch.randn(2, 5, 4),)
