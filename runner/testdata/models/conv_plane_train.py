# Convolutions through im2col/col2im's padded plane (issue 13; render/conv_plane.go), in
# training, so forward (im2col), backward input (col2im, which now writes dX: no memset) and
# backward weight (im2col) all run it: 3x3 stride 1 padding 1 at odd sizes, padding 0,
# rows wider than one 16-column chunk (OW 37: two chunks and a remainder), stride 2, stride
# (2, 1), dilation 2 with groups, padding (2, 0) with a (3, 2) window, a 1x1 conv, one
# plane too big for the stack (132 x 130 floats > 64 KB) that takes the masked loops, and
# two whose column matrix outgrows 1 MB, so im2col + GEMM run in chunks of output rows
# (gcdbg_conv_chunk): 16 -> 4 at 44 x 44 (plane path, chunks of 20, 20, 4 rows) and the big
# one (2 channels: masked path, chunks of 56, 56, 18 rows). Their input gradients run
# conv2d_backward_input in chunks of output rows too (render/conv_bwd_input.go), and so does
# a 16 -> 4 conv with stride 2, padding 2 and dilation 2 at 120 x 100 (output 60 x 50: chunks
# of 18, 18, 18, 6 rows).
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/conv_plane_train.py \
#         -o runner/testdata/conv_plane_train.json --seed 0 --runs 0
import torch
import torch.nn.functional as F
from torch import nn

NAME = "conv_plane_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 8, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 3, bias=False)
        self.c = nn.Conv2d(8, 6, 3, stride=2, padding=1)
        self.d = nn.Conv2d(6, 6, 3, stride=(2, 1), padding=1, bias=False)
        self.e = nn.Conv2d(6, 6, 3, padding=2, dilation=2, groups=3)
        self.f = nn.Conv2d(6, 5, (3, 2), padding=(2, 0))
        self.g = nn.Conv2d(4, 3, 1)
        self.w = nn.Conv2d(2, 2, 3, padding=1)
        self.h = nn.Conv2d(16, 4, 3, padding=1)
        self.k = nn.Conv2d(16, 4, 3, stride=2, padding=2, dilation=2, bias=False)

    def forward(self, x, big, wide, strided):
        h = torch.tanh(self.a(x))                 # 13 x 37, padding 1
        h = torch.tanh(self.b(h))                 # 11 x 35, padding 0
        s = self.c(h)                             # 6 x 18, stride 2
        s = self.d(torch.relu(s))                 # 3 x 18, stride (2, 1)
        s = self.e(s)                             # dilation 2, groups 3
        s = self.f(s)                             # (3, 2) window, padding (2, 0)
        p = self.g(x)                             # 1 x 1
        q = self.w(big)                           # 130 x 128: masked loops, in chunks
        r = self.h(wide)                          # 44 x 44: plane, in chunks
        k = self.k(strided)                       # stride 2, dilation 2: 60 x 50, in chunks
        return (s.sum((2, 3)), p.mean(1), torch.tanh(q).sum((1, 2)), torch.tanh(r).sum(1),  # tanh: dY varies over the rows
                torch.tanh(k).sum(1))


def make():
    x = torch.randn(3, 4, 13, 37, requires_grad=True)
    big = torch.randn(1, 2, 130, 128, requires_grad=True)
    wide = torch.randn(1, 16, 44, 44, requires_grad=True)
    strided = torch.randn(1, 16, 120, 100, requires_grad=True)
    return M(), (x, big, wide, strided)
