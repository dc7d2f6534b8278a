"""Activation checkpointing as ViT/GPT training code uses it: a patch/token embedding first (so
the checkpointed blocks' input requires grad), then torch.utils.checkpoint.checkpoint(block, x)
around each block (PyTorch 1.13's default, reentrant: the block's forward runs under no_grad and
is recomputed with grad in backward, so every block parameter gets its gradient)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

NAME = "r9_checkpoint_nonreentrant"
TRAIN = True


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.ln(x))))


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(12, 32)
        self.blocks = nn.ModuleList([Block(32) for _ in range(2)])
        self.head = nn.Linear(32, 4)

    def forward(self, x, y):
        x = self.embed(x)
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False)
        return F.cross_entropy(self.head(x.mean(1)), y)


def make():
    return M(), (torch.randn(4, 10, 12), torch.randint(0, 4, (4,)))
