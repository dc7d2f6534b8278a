"""Small U-Net for binary segmentation in training, the way the milesial/Pytorch-UNet and
diffusion-style code write it: DoubleConv blocks of Conv2d -> GroupNorm(8) -> SiLU, nn.MaxPool2d
down, one decoder level up by nn.ConvTranspose2d(stride 2) and two by
F.interpolate(scale_factor=2, mode="nearest") followed by a conv, milesial's F.pad of the
upsampled map to the skip's size (computed from .size()), torch.cat skips, 1x1 head, and a loss
of BCEWithLogits plus a soft Dice term on sigmoid(logits). Training, B8 x 3 x 64 x 64."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "unet_gn"
TRAIN = True


class DoubleConv(nn.Module):
    def __init__(self, cin, cout, groups=8):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.GroupNorm(groups, cout),
            nn.SiLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.GroupNorm(groups, cout),
            nn.SiLU(inplace=True),
        )

    def forward(self, x):
        return self.block(x)


class Down(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.pool = nn.MaxPool2d(2)
        self.conv = DoubleConv(cin, cout)

    def forward(self, x):
        return self.conv(self.pool(x))


class Up(nn.Module):
    def __init__(self, cin, cskip, cout, transpose):
        super().__init__()
        self.transpose = transpose
        if transpose:
            self.up = nn.ConvTranspose2d(cin, cin // 2, kernel_size=2, stride=2)
        else:
            self.up = nn.Conv2d(cin, cin // 2, 3, padding=1)
        self.conv = DoubleConv(cin // 2 + cskip, cout)

    def forward(self, x1, x2):
        if self.transpose:
            x1 = self.up(x1)
        else:
            x1 = self.up(F.interpolate(x1, scale_factor=2, mode="nearest"))
        # input is CHW; pad to the skip's size (odd sizes in general)
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, cin=3, base=16):
        super().__init__()
        c1, c2, c3, c4 = base, base * 2, base * 4, base * 8
        self.inc = DoubleConv(cin, c1)
        self.down1 = Down(c1, c2)
        self.down2 = Down(c2, c3)
        self.down3 = Down(c3, c4)
        self.up1 = Up(c4, c3, c3, transpose=True)
        self.up2 = Up(c3, c2, c2, transpose=False)
        self.up3 = Up(c2, c1, c1, transpose=False)
        self.outc = nn.Conv2d(c1, 1, kernel_size=1)
        self.bce = nn.BCEWithLogitsLoss()

    def forward(self, x, target):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x = self.up1(x4, x3)
        x = self.up2(x, x2)
        x = self.up3(x, x1)
        logits = self.outc(x)
        probs = torch.sigmoid(logits)
        dims = (2, 3)
        inter = (probs * target).sum(dim=dims)
        union = probs.sum(dim=dims) + target.sum(dim=dims)
        dice = 1.0 - (2.0 * inter + 1.0) / (union + 1.0)
        loss = self.bce(logits, target) + dice.mean()
        return loss, logits


def make():
    x = torch.randn(8, 3, 64, 64)
    # blobby masks: thresholded smooth noise
    noise = F.avg_pool2d(torch.randn(8, 1, 64, 64), 9, stride=1, padding=4)
    target = (noise > 0.1).float()
    return UNet(), (x, target)
