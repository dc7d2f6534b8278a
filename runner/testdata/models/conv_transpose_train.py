# ConvTranspose2d in training (issue 13), lowered to conv2d_backward_input (stages/decomp_ext_nn.go
# convTransposeAsInputGrad) instead of a convolution over a zero-inserted input: U-Net's 2x2 stride-2
# upsampling with bias, a 3x3 stride-2 padding-1 output_padding-1 one without bias, groups 2 with
# dilation 2 and a non-square (2, 3) stride (2, 1) window, a stride-1 one (a plain full convolution), an
# unbatched (3-D) input and a ConvTranspose1d. Gradients of every parameter and of the inputs.
import torch
from torch import nn

NAME = "conv_transpose_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.t3 = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, bias=False)
        self.g = nn.ConvTranspose2d(6, 4, (2, 3), stride=(2, 1), padding=(0, 2), dilation=2, groups=2)
        self.s1 = nn.ConvTranspose2d(4, 3, 3, padding=1)
        self.u = nn.ConvTranspose2d(8, 5, 3, stride=2)
        self.c1 = nn.ConvTranspose1d(6, 4, 4, stride=3, padding=1, output_padding=2)

    def forward(self, x, v, s):
        h = torch.tanh(self.up(x))       # 5x7 -> 10x14
        h = torch.tanh(self.t3(h))       # -> 20x28
        h = torch.tanh(self.g(h))        # grouped, dilated, non-square
        h = self.s1(h)
        u = self.u(v)                    # unbatched [8, 4, 3]
        c = self.c1(s)                   # 1-D
        return h.sum((2, 3)), torch.tanh(u).sum(0), torch.tanh(c).sum(1)


def make():
    x = torch.randn(2, 8, 5, 7, requires_grad=True)
    v = torch.randn(8, 4, 3, requires_grad=True)
    s = torch.randn(1, 6, 9, requires_grad=True)
    return M(), (x, v, s)
