"""MobileNetV2's inverted residuals as torchvision writes them, in training: a ConvBNReLU6 stem
(3x3/2), then InvertedResidual blocks (1x1 expand + BN + ReLU6, 3x3 depthwise + BN + ReLU6,
1x1 linear project + BN, residual when stride 1 and channels equal) with expand ratio 6,
a 1x1 ConvBNReLU6 head, global mean pool, Dropout(0.2), Linear, cross_entropy.
B8 x 3 x 64 x 64: the first expanded map 8 x 96 x 32 x 32 (3.1 MB), 8 x 144 x 16 x 16 after."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r7_mbv2_stack"
TRAIN = True
B, IMG, NC = 8, 64, 100


class ConvBNReLU(nn.Sequential):
    def __init__(self, cin, cout, k=3, stride=1, groups=1):
        super().__init__(nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU6(inplace=True))


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU(inp, hidden, k=1))
        layers.extend([ConvBNReLU(hidden, hidden, stride=stride, groups=hidden),
                       nn.Conv2d(hidden, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup)])
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MBv2(nn.Module):
    def __init__(self):
        super().__init__()
        # t, c, n, s
        cfg = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2]]
        feats = [ConvBNReLU(3, 32, stride=2)]
        cin = 32
        for t, c, n, s in cfg:
            for i in range(n):
                feats.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        feats.append(ConvBNReLU(cin, 256, k=1))
        self.features = nn.Sequential(*feats)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(256, NC))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x, y):
        x = self.features(x)
        x = x.mean([2, 3])
        return F.cross_entropy(self.classifier(x), y)


def make():
    return MBv2().train(), (torch.randn(B, 3, IMG, IMG), torch.randint(0, NC, (B,)))
