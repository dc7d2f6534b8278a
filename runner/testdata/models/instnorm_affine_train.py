# SRResNet-style residual blocks in training: conv3x3 -> InstanceNorm2d(affine=True) -> LeakyReLU(0.2)
# -> conv3x3 -> InstanceNorm2d(affine=True), scaled residual add. The InstanceNorm weight and bias
# gradients (sums over images and pixels per channel) share a kernel with a pointwise member that
# walks the [N*C, H*W] rows, whose index divides a flat offset by C*H*W: loopir/divsplit.go folds it.
import torch
from torch import nn

NAME = "instnorm_affine_train"
TRAIN = True


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.in1 = nn.InstanceNorm2d(c, affine=True)
        self.act = nn.LeakyReLU(0.2)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)
        self.in2 = nn.InstanceNorm2d(c, affine=True)

    def forward(self, x):
        return x + 0.5 * self.in2(self.conv2(self.act(self.in1(self.conv1(x)))))


class M(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.b1 = Block(c)
        self.b2 = Block(c)

    def forward(self, x):
        y = self.b2(self.b1(x))
        return (y * y).mean(), y


def make():
    torch.manual_seed(0)
    m = M()
    with torch.no_grad():
        for n in (m.b1.in1, m.b1.in2, m.b2.in1, m.b2.in2):
            n.weight.uniform_(0.5, 1.5)
            n.bias.uniform_(-0.5, 0.5)
    return m, (torch.randn(4, 8, 12, 12),)
