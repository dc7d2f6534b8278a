# U-Net's DoubleConv tail in training: conv3x3 -> GroupNorm(4, 16) -> SiLU, twice, over 16x16 maps
# (4 channels per group: a reduce loop of 4 x 256 points whose weight and bias index is point // 256).
# render/reduce_split.go runs those loops as [4, 256] so the per-channel weight is read once per run.
import torch
from torch import nn

NAME = "groupnorm_silu_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.g1 = nn.GroupNorm(4, 16)
        self.c2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.g2 = nn.GroupNorm(4, 16)

    def forward(self, x):
        y = nn.functional.silu(self.g1(self.c1(x)))
        y = nn.functional.silu(self.g2(self.c2(y)))
        return y.square().mean(), y


def make():
    torch.manual_seed(0)
    m = M()
    with torch.no_grad():
        for g in (m.g1, m.g2):
            g.weight.uniform_(0.5, 1.5)
            g.bias.uniform_(-0.5, 0.5)
    return m, (torch.randn(2, 3, 16, 16),)
