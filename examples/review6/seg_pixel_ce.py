"""A small FCN for semantic segmentation, in training, as a user writes one: Conv-BN-ReLU encoder
with a stride-2 stage, a bilinear upsample back to full resolution, a 1x1 classifier to 21 classes
(PASCAL VOC) and the per-pixel F.cross_entropy over the [B, C, H, W] logits with ignore_index=255
on the void pixels. The class dim of the loss is strided by H*W (the column-reduction path of
572e9c1); the BatchNorm + ReLU backward exercises the flipped-comparison second chance (8451ddb).
B8 x 3 x 128 x 128: logits 11 MB, activations up to 16.8 MB."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "seg_pixel_ce"
TRAIN = True
B, H, W, C = 8, 128, 128, 21


def cbr(i, o, s=1):
    return nn.Sequential(nn.Conv2d(i, o, 3, stride=s, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class FCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(cbr(3, 32), cbr(32, 32), cbr(32, 64, 2), cbr(64, 64))
        self.cls = nn.Conv2d(64, C, 1)

    def forward(self, img, mask):
        h = self.enc(img)
        h = F.interpolate(h, size=img.shape[-2:], mode="bilinear", align_corners=False)
        return F.cross_entropy(self.cls(h), mask, ignore_index=255)


def make():
    torch.manual_seed(0)
    mask = torch.randint(0, C, (B, H, W))
    mask[:, :8, :] = 255  # a void border
    return FCN().train(), (torch.randn(B, 3, H, W), mask)
