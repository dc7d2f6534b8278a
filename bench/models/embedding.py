"""Embedding lookup: 32,000 x 512 table, 64 x 128 token ids; inference."""
import torch
import torch.nn as nn

NAME = "embedding"


def make():
    return nn.Embedding(32000, 512), (torch.randint(0, 32000, (64, 128)),)
