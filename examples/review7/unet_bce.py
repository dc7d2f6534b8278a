"""A small U-Net for binary segmentation, in training, as in the common Pytorch-UNet repo:
DoubleConv (Conv-BN-ReLU x2), Down (MaxPool2d(2) + DoubleConv) x3, Up with nn.ConvTranspose2d(2, 2)
on two levels and nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True) on the last,
F.pad to the skip's size and torch.cat([skip, up], dim=1), a 1x1 OutConv, and
BCEWithLogitsLoss(pos_weight) against a 0/1 mask.
B4 x 3 x 96 x 96: the first level 4 x 32 x 96 x 96 (4.7 MB), the last cat 4 x 64 x 96 x 96 (9.4 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r7_unet_bce"
TRAIN = True
B, IMG = 4, 96


class DoubleConv(nn.Module):
    def __init__(self, cin, cout, mid=None):
        super().__init__()
        mid = mid or cout
        self.double_conv = nn.Sequential(
            nn.Conv2d(cin, mid, 3, padding=1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(inplace=True),
            nn.Conv2d(mid, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(cin, cout))

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    def __init__(self, cin, cout, bilinear):
        super().__init__()
        if bilinear:
            self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
            self.conv = DoubleConv(cin, cout, cin // 2)
        else:
            self.up = nn.ConvTranspose2d(cin, cin // 2, kernel_size=2, stride=2)
            self.conv = DoubleConv(cin, cout)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        dy = x2.size()[2] - x1.size()[2]
        dx = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        return self.conv(torch.cat([x2, x1], dim=1))


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.inc = DoubleConv(3, 32)
        self.down1 = Down(32, 64)
        self.down2 = Down(64, 128)
        self.down3 = Down(128, 256)
        self.up1 = Up(256, 128, bilinear=False)
        self.up2 = Up(128, 64, bilinear=False)
        self.up3 = Up(96, 32, bilinear=True)
        self.outc = nn.Conv2d(32, 1, 1)
        self.crit = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))

    def forward(self, x, mask):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x = self.up1(x4, x3)
        x = self.up2(x, x2)
        x = self.up3(x, x1)
        return self.crit(self.outc(x), mask)


def make():
    img = torch.randn(B, 3, IMG, IMG)
    mask = (torch.rand(B, 1, IMG, IMG) > 0.7).float()
    return UNet().train(), (img, mask)
