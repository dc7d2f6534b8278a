# Generic (im2col + GEMM) convolutions whose weights or output gradients hold NaN and +-Inf, in
# training (render/conv_nonfinite.go): im2col writes the padding as zeros, and a NaN/Inf weight (or
# dY element) times such a zero is NaN where PyTorch's float32 convolutions (oneDNN's direct JIT
# kernels) and the eager interpreter skip the padding and stay finite.
#   a: 3->6 3x3 padding 1, a NaN tap in filter 1, +Inf in filter 2 (corner tap), -Inf in filter 4;
#   b: 16->32 in 2 groups, 3x3, stride 2, padding 1, +Inf in filter 3; dY = rb holds +Inf at two
#      outputs whose windows reach padding and NaN at a third (b's weight gradient meets them);
#   c: a Conv1d 2->3 of width 5 padding 2, -Inf in filter 0;
#   d: 16->32 3x3, padding 2, dilation 2, -Inf in filter 5.
# Each output is multiplied by a fixed r (dY = r; finite but for rb). Channel counts are where
# PyTorch 1.13 takes oneDNN's direct kernels: with 2 input or 6 output channels per group (or
# dilation, for the weight gradient) it takes oneDNN's im2col GEMM, NaN at the border like ours was.
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/conv_nonfinite.py \
#         -o runner/testdata/conv_nonfinite.json --seed 0 --runs 0
import torch
from torch import nn

NAME = "conv_nonfinite"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 6, 3, padding=1)
        self.b = nn.Conv2d(16, 32, 3, stride=2, padding=1, groups=2)
        self.c = nn.Conv1d(2, 3, 5, padding=2)
        self.d = nn.Conv2d(16, 32, 3, padding=2, dilation=2)
        with torch.no_grad():
            self.a.weight[1, 0, 1, 1] = float("nan")
            self.a.weight[2, 2, 0, 0] = float("inf")
            self.a.weight[4, 1, 2, 1] = float("-inf")
            self.b.weight[3, 1, 0, 2] = float("inf")
            self.c.weight[0, 1, 4] = float("-inf")
            self.d.weight[5, 7, 2, 2] = float("-inf")

    def forward(self, x, xb, xc, xd, ra, rb, rc, rd):
        return self.a(x) * ra, self.b(xb) * rb, self.c(xc) * rc, self.d(xd) * rd


def make():
    x = torch.randn(2, 3, 7, 9, requires_grad=True)
    xb = torch.randn(2, 16, 10, 11, requires_grad=True)
    xc = torch.randn(2, 2, 12, requires_grad=True)
    xd = torch.randn(2, 16, 8, 9, requires_grad=True)
    ra = torch.randn(2, 6, 7, 9)
    rb = torch.randn(2, 32, 5, 6)
    rb[0, 1, 0, 3] = float("inf")
    rb[1, 20, 2, 0] = float("inf")
    rb[1, 21, 4, 5] = float("nan")
    rc = torch.randn(2, 3, 12)
    rd = torch.randn(2, 32, 8, 9)
    return M(), (x, xb, xc, xd, ra, rb, rc, rd)
