"""MobileNetV2 (width 0.5, CIFAR-ish stem) in training: inverted residual blocks with a 1x1
expansion, a 3x3 depthwise conv (groups=channels, stride 1 or 2), a linear 1x1 projection and
a residual add when shapes allow; BatchNorm2d in training (running stats updated), ReLU6,
global average pool, Dropout(0.2), Linear classifier, cross-entropy. Batch 16 of 3x64x64."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "mobilenetv2"
TRAIN = True


def conv_bn(cin, cout, k, stride=1, groups=1, act=True):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU6(inplace=True))
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        layers = []
        if expand != 1:
            layers.append(conv_bn(cin, hidden, 1))
        layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden),
                   conv_bn(hidden, cout, 1, act=False)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Module):
    # (expansion t, channels c, repeats n, first stride s), width 0.5
    cfg = [(1, 8, 1, 1), (6, 12, 2, 2), (6, 16, 3, 2), (6, 32, 2, 2), (6, 48, 2, 1)]

    def __init__(self, num_classes=100):
        super().__init__()
        layers = [conv_bn(3, 16, 3, stride=1)]
        cin = 16
        for t, c, n, s in self.cfg:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(conv_bn(cin, 640, 1))
        self.features = nn.Sequential(*layers)
        self.dropout = nn.Dropout(0.2)
        self.classifier = nn.Linear(640, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x, y):
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        logits = self.classifier(self.dropout(x))
        return F.cross_entropy(logits, y)


def make():
    return MobileNetV2(), (torch.randn(16, 3, 64, 64), torch.randint(0, 100, (16,)))
