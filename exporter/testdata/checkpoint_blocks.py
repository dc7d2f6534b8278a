"""Activation checkpointing as ViT/GPT training code writes it (examples/review9 finding 1):
torch.utils.checkpoint.checkpoint(block, x) around each block. VARIANT=reentrant (PyTorch 1.13's
default), nonreentrant (use_reentrant=False); nograd_input checkpoints blocks whose input requires
no grad (no embedding before them), where PyTorch's reentrant checkpoint gives the blocks'
parameters no gradient."""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

VARIANT = os.environ.get("VARIANT", "reentrant")
TRAIN = True


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return x + self.drop(self.fc2(F.gelu(self.fc1(self.ln(x)))))


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(12, 32)
        self.blocks = nn.ModuleList([Block(32) for _ in range(2)])
        self.head = nn.Linear(32, 4)

    def forward(self, x, y):
        if VARIANT == "nograd_input":
            x = F.pad(x, (0, 32 - 12))
        else:
            x = self.embed(x)
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=(VARIANT != "nonreentrant"))
        return F.cross_entropy(self.head(x.mean(1)), y)


def make():
    return M(), (torch.randn(4, 10, 12), torch.randint(0, 4, (4,)))
