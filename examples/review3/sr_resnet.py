"""Single-image super-resolution (EDSR/SRResNet style) in training: a 9x9 head conv + PReLU, three
residual blocks (conv3x3 -> InstanceNorm2d(affine=True) -> LeakyReLU(0.2) -> conv3x3 ->
InstanceNorm2d, scaled residual add), a global skip, x2 upsampling by conv3x3 to 4C channels +
nn.PixelShuffle(2) + PReLU, a 3x3 conv to RGB, plus the bilinearly upsampled input
(F.interpolate(scale_factor=2, mode="bilinear", align_corners=False)) as the base image; a second
nn.Upsample(scale_factor=2, mode="nearest") path feeds an auxiliary edge loss. Loss: L1 on pixels +
0.1 x smooth_l1 (beta 0.5) on horizontal/vertical image gradients. B4 x 3 x 96 x 96 LR -> 192 x 192 HR,
32 features: the pre-shuffle tensor is 4 x 128 x 96 x 96 (18.9 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "sr_resnet"
TRAIN = True

C, LR = 32, 96


class ResBlock(nn.Module):
    def __init__(self, c, scale=0.5):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.in1 = nn.InstanceNorm2d(c, affine=True)
        self.act = nn.LeakyReLU(0.2, inplace=True)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)
        self.in2 = nn.InstanceNorm2d(c, affine=True)
        self.scale = scale

    def forward(self, x):
        y = self.act(self.in1(self.conv1(x)))
        y = self.in2(self.conv2(y))
        return x + self.scale * y


class SRNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, C, 9, padding=4)
        self.head_act = nn.PReLU()
        self.body = nn.Sequential(*[ResBlock(C) for _ in range(3)])
        self.body_conv = nn.Conv2d(C, C, 3, padding=1)
        self.up = nn.Sequential(nn.Conv2d(C, 4 * C, 3, padding=1), nn.PixelShuffle(2), nn.PReLU(C))
        self.tail = nn.Conv2d(C, 3, 3, padding=1)
        self.near = nn.Upsample(scale_factor=2, mode="nearest")

    def forward(self, lr, hr):
        base = F.interpolate(lr, scale_factor=2, mode="bilinear", align_corners=False)
        feat = self.head_act(self.head(lr))
        x = self.body_conv(self.body(feat)) + feat
        sr = self.tail(self.up(x)) + base
        loss = F.l1_loss(sr, hr)
        # edge loss against the nearest-upsampled input's gradients of the residual
        res = sr - self.near(lr)
        dx = res[:, :, :, 1:] - res[:, :, :, :-1]
        dy = res[:, :, 1:, :] - res[:, :, :-1, :]
        tdx = hr[:, :, :, 1:] - hr[:, :, :, :-1]
        tdy = hr[:, :, 1:, :] - hr[:, :, :-1, :]
        edge = F.smooth_l1_loss(dx, tdx, beta=0.5) + F.smooth_l1_loss(dy, tdy, beta=0.5)
        return loss + 0.1 * edge, sr


def make():
    torch.manual_seed(0)
    hr = torch.rand(4, 3, 2 * LR, 2 * LR)
    lr = F.avg_pool2d(hr, 2) + 0.01 * torch.randn(4, 3, LR, LR)
    return SRNet(), (lr, hr)
