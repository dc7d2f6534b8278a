"""Transformer feed-forward 1024 -> 4096 -> 1024 (GELU) at batch 256; training."""
import torch
import torch.nn as nn

NAME = "ffn_train"
TRAIN = True


def make():
    model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024))
    return model, (torch.randn(256, 1024),)
