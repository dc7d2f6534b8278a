# Pixel shuffles whose copy nest ends in a loop of 3 or 4 points (factors 3 and 4) over rows of at
# least 16 columns, in training: render runs the row as the SIMD loop with the few points inside it
# (render/loops_tiny.go). x * s (a parameter per input channel) -> nn.PixelShuffle(3) -> nn.PReLU(3)
# and y -> F.pixel_shuffle(4) -> LeakyReLU, plus a pixel_unshuffle(2) of the first; odd heights.
import torch
from torch import nn
import torch.nn.functional as F

NAME = "pixel_shuffle_tiny_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = nn.Parameter(torch.randn(27, 1, 1))
        self.t = nn.Parameter(torch.randn(32, 1, 1))
        self.up3 = nn.Sequential(nn.PixelShuffle(3), nn.PReLU(3))

    def forward(self, x, y):
        a = self.up3(x * self.s)
        b = F.leaky_relu(F.pixel_shuffle(y * self.t, 4), 0.1)
        c = F.pixel_unshuffle(a[:, :, :14, :36], 2)
        return a.abs().mean() + b.square().mean() + c.sum() * 0.01, a, b


def make():
    torch.manual_seed(0)
    return M(), (torch.randn(2, 27, 5, 20), torch.randn(2, 32, 7, 17))
