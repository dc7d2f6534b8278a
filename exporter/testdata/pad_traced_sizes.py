"""milesial's U-Net Up block: F.pad of the upsampled map to the skip's size, the pads computed
from .size() (proxies while fx traces; fx alone fails: "pad(): argument 'pad' (position 2) must be
tuple of ints, not list"). Odd sizes so every pad is non-zero and uneven; trained."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True


class Up(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 2, 2, stride=2)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        x1 = F.pad(x1, (0, x1.shape[-1] % 2), value=-1.5)  # a tuple, a value= keyword
        return torch.cat([x2, x1[..., :x2.shape[-1]]], dim=1) * 2, x1


def make():
    return Up(), (torch.randn(2, 4, 3, 3, requires_grad=True), torch.randn(2, 3, 7, 9))
