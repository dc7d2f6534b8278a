# Depthwise convolutions (render/conv_depthwise.go) whose weights hold a NaN and +-Inf, in training:
# the backward input's finite path lays dY on rows of width Wq > OW with zeros past OW, where an
# Inf weight would make Inf * 0 = NaN that PyTorch does not have, so a non-finite weight takes the
# row-by-row path of real dY elements only. 3x3 stride 1 padding 1 over 4 channels (a NaN tap in
# channel 1, +Inf in channel 2, -Inf in channel 3, channel 0 finite) and a depth multiplier of 2 at
# stride 2 with +Inf in one of its six filters. The outputs are multiplied by a fixed random r, so
# dY = r is finite and varies: NaN and Inf in the outputs and in dX come from the weights alone, and
# the weight gradients (sum of dY * x) stay finite.
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/conv_depthwise_nanw.py \
#         -o runner/testdata/conv_depthwise_nanw.json --seed 0 --runs 0
import torch
from torch import nn

NAME = "conv_depthwise_nanw"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 4, 3, padding=1, groups=4)
        self.b = nn.Conv2d(3, 6, 3, stride=2, padding=1, groups=3)
        with torch.no_grad():
            self.a.weight[1, 0, 1, 1] = float("nan")
            self.a.weight[2, 0, 0, 2] = float("inf")
            self.a.weight[3, 0, 2, 0] = float("-inf")
            self.b.weight[4, 0, 1, 2] = float("inf")

    def forward(self, x, xb, ra, rb):
        return self.a(x) * ra, self.b(xb) * rb


def make():
    x = torch.randn(2, 4, 9, 13, requires_grad=True)
    xb = torch.randn(2, 3, 11, 16, requires_grad=True)
    ra = torch.randn(2, 4, 9, 13)
    rb = torch.randn(2, 6, 6, 8)
    return M(), (x, xb, ra, rb)
