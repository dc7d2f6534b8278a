"""Small U-Net for binary segmentation: DoubleConv (Conv2d-BatchNorm2d-ReLU x2), MaxPool2d down,
ConvTranspose2d up on one level and bilinear F.interpolate on the other, torch.cat skips,
Dropout2d at the bottleneck, 1x1 head, BCEWithLogitsLoss(pos_weight). Training, B4 x 3 x 64 x 64."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "unet_small"
TRAIN = True


class DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.net(x)


class UNet(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.inc = DoubleConv(3, c)
        self.down1 = DoubleConv(c, 2 * c)
        self.down2 = DoubleConv(2 * c, 4 * c)
        self.drop = nn.Dropout2d(0.25)
        self.up1 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.conv1 = DoubleConv(4 * c, 2 * c)
        self.conv2 = DoubleConv(3 * c, c)
        self.outc = nn.Conv2d(c, 1, 1)
        self.loss = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))

    def forward(self, x, mask):
        x1 = self.inc(x)
        x2 = self.down1(F.max_pool2d(x1, 2))
        x3 = self.drop(self.down2(F.max_pool2d(x2, 2)))
        u = self.up1(x3)
        u = self.conv1(torch.cat([x2, u], dim=1))
        u = F.interpolate(u, scale_factor=2, mode="bilinear", align_corners=False)
        u = self.conv2(torch.cat([x1, u], dim=1))
        logits = self.outc(u)
        return self.loss(logits, mask), torch.sigmoid(logits)


def make():
    x = torch.randn(4, 3, 64, 64)
    mask = (torch.rand(4, 1, 64, 64) > 0.7).float()
    return UNet(), (x, mask)
