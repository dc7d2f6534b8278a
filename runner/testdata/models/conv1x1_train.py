# 1x1 convolutions in training (issue 13; render/conv.go conv1x1): stride 1 without padding, the GEMMs
# read the input as the column matrix (forward, weight gradient) and write the input gradient (no im2col,
# no col2im): with bias, groups 2, batch 1, an input sliced along its channels (channel stride not H*W),
# and the cases that keep im2col: a permuted input (rows not contiguous), stride 2, padding 1; a 1x1
# ConvTranspose2d (an input gradient kernel in the forward). Gradients of every parameter and input.
import torch
from torch import nn

NAME = "conv1x1_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(16, 24, 1)
        self.b = nn.Conv2d(24, 12, 1, groups=2, bias=False)
        self.c = nn.Conv2d(8, 10, 1)
        self.p = nn.Conv2d(12, 9, 1)
        self.s = nn.Conv2d(12, 9, 1, stride=2)
        self.q = nn.Conv2d(12, 9, 1, padding=1, bias=False)
        self.t = nn.ConvTranspose2d(12, 16, 1)

    def forward(self, x, y, z):
        h = torch.tanh(self.a(x))                  # 16 -> 24, 9x13
        h = self.b(h)                              # groups 2
        c = self.c(y[:, 2:10])                     # batch 1, channels sliced
        p = self.p(h.permute(0, 1, 3, 2))          # rows not contiguous: im2col
        s = self.s(h)                              # stride 2: im2col
        q = self.q(h)                              # padding 1: im2col
        t = self.t(torch.tanh(z))                  # 1x1 transposed: backward-input kernel
        return (torch.tanh(c).sum((2, 3)), torch.tanh(p).sum(1), s.sum((2, 3)), torch.tanh(q).sum(1),
                torch.tanh(t).mean((2, 3)))


def make():
    x = torch.randn(3, 16, 9, 13, requires_grad=True)
    y = torch.randn(1, 12, 7, 5, requires_grad=True)
    z = torch.randn(2, 12, 6, 4, requires_grad=True)
    return M(), (x, y, z)
