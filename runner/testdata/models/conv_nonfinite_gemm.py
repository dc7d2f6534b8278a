# Convolutions for which oneDNN (and so PyTorch 1.13 on the CPU) takes its GEMM-based kernels, which
# multiply the padding like im2col: a: 4->6 in 2 groups (2 input, 3 output channels per group), 3x3,
# stride 2, padding 1, +Inf in filter 3; b: 16->32 in 2 groups, 3x3, stride 2, padding 2, dilation 2 (its weight gradient), with
# dY = rb holding +Inf at two outputs whose windows reach padding and NaN at a third. There PyTorch's own
# values are NaN at the border where its direct kernels (conv_nonfinite.py) and the eager interpreter
# are finite; gcdbg's checks (render/conv_nonfinite.go) run after both the im2col path and oneDNN's
# primitive, so every candidate gives the eager interpreter's values (runner TestConvNonFiniteGEMMKernels).
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/conv_nonfinite_gemm.py \
#         -o runner/testdata/conv_nonfinite_gemm.json --seed 0 --runs 0
import torch
from torch import nn

NAME = "conv_nonfinite_gemm"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
        self.b = nn.Conv2d(16, 32, 3, stride=2, padding=2, dilation=2, groups=2)
        with torch.no_grad():
            self.a.weight[3, 1, 0, 2] = float("inf")

    def forward(self, x, xb, ra, rb):
        return self.a(x) * ra, self.b(xb) * rb


def make():
    x = torch.randn(2, 4, 10, 11, requires_grad=True)
    xb = torch.randn(2, 16, 8, 9, requires_grad=True)
    ra = torch.randn(2, 6, 5, 6)
    rb = torch.randn(2, 32, 4, 5)
    rb[0, 1, 0, 3] = float("inf")
    rb[1, 20, 2, 0] = float("inf")
    rb[1, 21, 3, 4] = float("nan")
    return M(), (x, xb, ra, rb)
