import torch
from torch import nn
import torch.nn.functional as F

NAME = "mobilenet_v2"
TRAIN = True


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand):
        super().__init__()
        hidden = inp * expand
        self.use_res = stride == 1 and inp == oup
        layers = []
        if expand != 1:
            layers += [nn.Conv2d(inp, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(inplace=True)]
        layers += [
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, oup, 1, bias=False),
            nn.BatchNorm2d(oup),
        ]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res:
            return x + self.conv(x)
        return self.conv(x)


class SqueezeExcite(nn.Module):
    def __init__(self, c, r=4):
        super().__init__()
        self.fc1 = nn.Conv2d(c, c // r, 1)
        self.fc2 = nn.Conv2d(c // r, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        s = F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))
        return x * s


class MobileNetV2Small(nn.Module):
    def __init__(self, num_classes=10, width=1.0):
        super().__init__()
        cfg = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 2, 2), (6, 64, 2, 2), (6, 96, 1, 1)]
        c = 32
        feats = [nn.Conv2d(3, c, 3, 2, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU6(inplace=True)]
        for t, oc, n, s in cfg:
            for i in range(n):
                feats.append(InvertedResidual(c, oc, s if i == 0 else 1, t))
                c = oc
        feats.append(SqueezeExcite(c))
        feats += [nn.Conv2d(c, 320, 1, bias=False), nn.BatchNorm2d(320), nn.ReLU6(inplace=True)]
        self.features = nn.Sequential(*feats)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(320, num_classes))

    def forward(self, x, y):
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        logits = self.classifier(x)
        return F.cross_entropy(logits, y, label_smoothing=0.1), logits.argmax(1)


def make():
    m = MobileNetV2Small()
    return m, (torch.randn(16, 3, 64, 64), torch.randint(0, 10, (16,)))
