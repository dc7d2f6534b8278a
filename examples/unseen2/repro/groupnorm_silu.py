"""GroupNorm(8, 32) + SiLU on 4x32x48x48 in training (gn_net's slowest non-conv kernel)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(8, 32)

    def forward(self, x):
        return F.silu(self.gn(x)).pow(2).mean()


def make():
    return M(), (torch.randn(4, 32, 48, 48, requires_grad=True),)
