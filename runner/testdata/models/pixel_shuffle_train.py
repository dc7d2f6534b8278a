# Sub-pixel upsampling as SR models write it, in training: conv to 4C channels, nn.PixelShuffle(2)
# and a per-channel nn.PReLU(C) (one kernel copying the shuffled map with an innermost loop of 2),
# then a tail conv and an L1 loss; plus a 3x shuffle of a plain parameter-scaled input so both
# factors and odd widths are covered.
import torch
from torch import nn
import torch.nn.functional as F

NAME = "pixel_shuffle_train"
TRAIN = True


class M(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.up = nn.Sequential(nn.Conv2d(c, 4 * c, 3, padding=1), nn.PixelShuffle(2), nn.PReLU(c))
        self.tail = nn.Conv2d(c, 3, 3, padding=1)
        self.s = nn.Parameter(torch.randn(9 * 2, 1, 1))

    def forward(self, x, y, z):
        sr = self.tail(self.up(x))
        z3 = F.pixel_shuffle(z * self.s, 3)
        return F.l1_loss(sr, y) + z3.square().mean(), z3


def make():
    torch.manual_seed(0)
    return M(), (torch.randn(2, 8, 24, 24), torch.randn(2, 3, 48, 48), torch.randn(2, 18, 7, 9))
