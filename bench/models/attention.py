"""Causal scaled-dot-product attention, B=4 H=8 T=128 D=64, written out; inference."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "attention"


class CausalAttention(nn.Module):
    def __init__(self, T, D):
        super().__init__()
        self.scale = 1.0 / math.sqrt(D)
        self.register_buffer("mask", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

    def forward(self, q, k, v):
        att = (q @ k.transpose(-2, -1)) * self.scale
        att = att.masked_fill(self.mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        return att @ v


def make():
    B, H, T, D = 4, 8, 128, 64
    return CausalAttention(T, D), (torch.randn(B, H, T, D), torch.randn(B, H, T, D), torch.randn(B, H, T, D))
