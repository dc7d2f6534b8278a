"""A small semantic-segmentation training step (DeepLab/LR-ASPP-flavoured) with on-the-fly
affine augmentation: the batch and its one-hot mask are warped by F.affine_grid + F.grid_sample
(bilinear for the image, nearest for the mask, align_corners=False) with per-sample rotation
matrices given as an input; an encoder of Conv-GroupNorm(1, C)-Hardswish blocks with
PixelUnshuffle(2) downsampling and Squeeze-Excitation (AdaptiveAvgPool2d(1), 1x1 convs, ReLU,
Hardsigmoid); Dropout2d; a decoder that upsamples with F.interpolate(bilinear,
align_corners=True) and merges the skip, then F.interpolate(scale_factor=4, bilinear,
align_corners=False) back to full size; loss cross_entropy + soft Dice (softmax probabilities
against the one-hot target, (2 * inter + 1) / (union + 1)).
B8 x 3 x 128^2, 6 classes; full-resolution logits 8 x 6 x 128^2 (3.1 MB); encoder maps
8 x 48 x 64^2 (6.3 MB), 8 x 96 x 32^2."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "vis_seg_dice"
TRAIN = True

B, H, W, K = 8, 128, 128, 6


class SE(nn.Module):
    def __init__(self, c, r=4):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(c, c // r, 1)
        self.fc2 = nn.Conv2d(c // r, c, 1)

    def forward(self, x):
        s = F.hardsigmoid(self.fc2(F.relu(self.fc1(self.pool(x)))))
        return x * s


def cgh(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.GroupNorm(1, cout), nn.Hardswish())


class SegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(cgh(3, 12), nn.PixelUnshuffle(2), cgh(48, 48), SE(48))          # 64^2
        self.enc2 = nn.Sequential(nn.PixelUnshuffle(2), cgh(192, 96), cgh(96, 96), SE(96))        # 32^2
        self.enc3 = nn.Sequential(nn.PixelUnshuffle(2), cgh(384, 128), nn.Dropout2d(0.1))        # 16^2
        self.lat = nn.Conv2d(48, 32, 1)
        self.dec = nn.Sequential(cgh(128 + 96, 96), cgh(96, 64))
        self.fuse = cgh(64 + 32, 64)
        self.cls = nn.Conv2d(64, K, 1)

    def forward(self, x):
        f1 = self.enc1(x)
        f2 = self.enc2(f1)
        f3 = self.enc3(f2)
        u = F.interpolate(f3, size=f2.shape[-2:], mode="bilinear", align_corners=True)
        d = self.dec(torch.cat([u, f2], 1))
        d = F.interpolate(d, scale_factor=2, mode="bilinear", align_corners=True)
        d = self.fuse(torch.cat([d, self.lat(f1)], 1))
        return F.interpolate(self.cls(d), scale_factor=2, mode="bilinear", align_corners=False)


def dice_loss(logits, onehot, eps=1.0):
    p = logits.softmax(1)
    inter = (p * onehot).sum((0, 2, 3))
    union = p.sum((0, 2, 3)) + onehot.sum((0, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


class SegStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = SegNet()

    def forward(self, img, mask, theta):
        grid = F.affine_grid(theta, img.size(), align_corners=False)
        img = F.grid_sample(img, grid, mode="bilinear", padding_mode="reflection", align_corners=False)
        onehot = F.one_hot(mask, K).permute(0, 3, 1, 2).float()
        onehot = F.grid_sample(onehot, grid, mode="nearest", padding_mode="border", align_corners=False)
        target = onehot.argmax(1)
        logits = self.net(img)
        loss = F.cross_entropy(logits, target) + dice_loss(logits, onehot)
        return loss, logits


def make():
    img = torch.randn(B, 3, H, W)
    mask = torch.randint(0, K, (B, H // 8, W // 8)).repeat_interleave(8, 1).repeat_interleave(8, 2)
    ang = torch.rand(B) * 0.6 - 0.3
    scale = 1 + 0.2 * torch.rand(B)
    theta = torch.zeros(B, 2, 3)
    theta[:, 0, 0] = torch.cos(ang) * scale
    theta[:, 0, 1] = -torch.sin(ang) * scale
    theta[:, 1, 0] = torch.sin(ang) * scale
    theta[:, 1, 1] = torch.cos(ang) * scale
    theta[:, :, 2] = 0.1 * torch.randn(B, 2)
    return SegStep(), (img, mask, theta)
