"""MobileNetV2/V3-style: stem conv, two inverted-residual blocks (1x1 expand, 3x3 depthwise
with groups=channels, 1x1 project) with BatchNorm, ReLU6 and Hardswish, squeeze-excite with
Hardsigmoid, global pool, classifier with dropout; training, batch 16 x 3x64x64."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "mobilenet_block"
TRAIN = True


class SqueezeExcite(nn.Module):
    def __init__(self, c, r=4):
        super().__init__()
        self.fc1 = nn.Conv2d(c, c // r, 1)
        self.fc2 = nn.Conv2d(c // r, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        s = F.relu(self.fc1(s))
        return x * F.hardsigmoid(self.fc2(s))


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand, act, se=False):
        super().__init__()
        hid = inp * expand
        self.use_res = stride == 1 and inp == oup
        layers = [nn.Conv2d(inp, hid, 1, bias=False), nn.BatchNorm2d(hid), act(),
                  nn.Conv2d(hid, hid, 3, stride, 1, groups=hid, bias=False),
                  nn.BatchNorm2d(hid), act()]
        if se:
            layers.append(SqueezeExcite(hid))
        layers += [nn.Conv2d(hid, oup, 1, bias=False), nn.BatchNorm2d(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetish(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16),
                                  nn.Hardswish())
        self.b1 = InvertedResidual(16, 24, 2, 4, nn.ReLU6)
        self.b2 = InvertedResidual(24, 24, 1, 3, nn.Hardswish, se=True)
        self.head = nn.Sequential(nn.Linear(24, 64), nn.Hardswish(), nn.Dropout(0.2),
                                  nn.Linear(64, num_classes))

    def forward(self, x, y):
        x = self.b2(self.b1(self.stem(x)))
        x = x.mean([2, 3])
        return F.cross_entropy(self.head(x), y, label_smoothing=0.1)


def make():
    return MobileNetish(), (torch.randn(16, 3, 64, 64), torch.randint(0, 10, (16,)))
