# Depthwise convolutions (groups == channels; issue 13, render/conv_depthwise.go) in training,
# so forward, backward input and backward weight all take the direct depthwise kernels:
# 3x3 stride 1 padding 1 at 13 x 37 (rows wider than one 16-wide chunk), a depth multiplier
# of 2 with stride 2, dilation 2 with padding 2, a (3, 5) window with padding (0, 2), 5x5
# stride 2 padding 2, a 2x2 stride 2 window on odd sizes (the last row and column reach no
# window: dX 0 there), padding 3 past a 3x3 window (border outputs are the bias alone), a 1x1,
# stride (1, 2) padding 0, a batch-1 130 x 128 plane (bigger than conv_plane.go's stack plane)
# with a multiplier of 2 at stride 2, and a NaN in an input (it reaches only the outputs and
# gradients whose windows hold it; the NaN sits in a corner with padding 0, so only one tap of
# the weight gradient turns NaN).
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/conv_depthwise_train.py \
#         -o runner/testdata/conv_depthwise_train.json --seed 0 --runs 0
import torch
from torch import nn

NAME = "conv_depthwise_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.b = nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=8, bias=False)
        self.c = nn.Conv2d(16, 16, 3, padding=2, dilation=2, groups=16)
        self.d = nn.Conv2d(16, 16, (3, 5), padding=(0, 2), groups=16, bias=False)
        self.e = nn.Conv2d(16, 16, 5, stride=2, padding=2, groups=16)
        self.f = nn.Conv2d(8, 8, 2, stride=2, groups=8)
        self.g = nn.Conv2d(8, 8, 3, padding=3, groups=8)
        self.h = nn.Conv2d(16, 16, 1, groups=16)
        self.i = nn.Conv2d(16, 16, 3, stride=(1, 2), groups=16)
        self.big = nn.Conv2d(3, 3, 3, padding=1, groups=3)
        self.big2 = nn.Conv2d(3, 6, 3, stride=2, padding=1, groups=3, bias=False)
        self.n = nn.Conv2d(3, 3, 3, groups=3)

    def forward(self, x, big, xn):
        h = torch.tanh(self.a(x))                  # 13 x 37
        s = self.b(h)                              # 7 x 19, multiplier 2, stride 2
        s = torch.tanh(self.c(s))                  # dilation 2
        s = self.d(s)                              # (3, 5) window: 5 x 19
        u = self.e(torch.tanh(s))                  # 5x5 stride 2: 3 x 10
        f = self.f(h[:, :, :7, :19])               # 2x2 stride 2 on 7 x 19: 3 x 9
        g = self.g(h)                              # padding 3: 17 x 41
        v = self.i(torch.tanh(self.h(s)))          # 1x1, then stride (1, 2): 3 x 9
        q = self.big2(torch.tanh(self.big(big)))   # 130 x 128, then multiplier 2 at stride 2
        r = torch.tanh(self.n(xn))                 # a NaN in a corner, padding 0
        return (u.sum((2, 3)), torch.tanh(f).sum(1), torch.tanh(g).mean((1, 2)), torch.tanh(v).sum(1),
                torch.tanh(q).sum((1, 2)), r.sum(1))  # tanh: dY varies over the planes


def make():
    x = torch.randn(3, 8, 13, 37, requires_grad=True)
    big = torch.randn(1, 3, 130, 128, requires_grad=True)
    xn = torch.randn(2, 3, 9, 11)
    xn[1, 1, 0, 0] = float("nan")
    xn.requires_grad_(True)
    return M(), (x, big, xn)
