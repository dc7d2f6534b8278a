"""LayerNorm(1024) over 4096 rows; inference."""
import torch
import torch.nn as nn

NAME = "layer_norm"


def make():
    return nn.LayerNorm(1024), (torch.randn(4096, 1024),)
