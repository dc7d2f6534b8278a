# 3x3 stride-1 convolutions in training whose weight gradients may run oneDNN's Winograd convolution
# (render/conv_dnnl.go gcdbg_dconv_wino, choice 16|64):
#   a: 16->32 3x3 padding 1, every operand finite (the Winograd result stands);
#   b: 16->32 3x3 without padding, xb holds -Inf on its top edge (1, 3, 0, 5): only the kh = 0 taps'
#      gradient of input channel 3 meets it in the direct sums (no padding: conv_nonfinite.go's check
#      is not emitted), but Winograd's transforms add it up with both signs (NaN where the direct
#      sums are -Inf or +Inf), so its result's NaN/Inf check falls back to the direct primitive, and
#      b's weight gradient is PyTorch's, NaN/Inf at PyTorch's positions only.
# Each output is multiplied by a fixed r (dY = r).
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/conv_wino_train.py \
#         -o runner/testdata/conv_wino_train.json --seed 0 --runs 0
import torch
from torch import nn

NAME = "conv_wino_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(16, 32, 3, padding=1)
        self.b = nn.Conv2d(16, 32, 3)

    def forward(self, x, xb, ra, rb):
        return self.a(x) * ra, self.b(xb) * rb


def make():
    x = torch.randn(2, 16, 12, 10, requires_grad=True)
    xb = torch.randn(2, 16, 9, 11)
    xb[1, 3, 0, 5] = float("-inf")
    xb.requires_grad_(True)
    ra = torch.randn(2, 32, 12, 10)
    rb = torch.randn(2, 32, 7, 9)
    return M(), (x, xb, ra, rb)
