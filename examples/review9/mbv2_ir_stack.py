"""MobileNetV2 inverted-residual stack in training, torchvision-style (_make_divisible, width
multiplier 0.5, ConvBNActivation = Conv2d + BatchNorm2d + ReLU6(inplace)), InvertedResidual with
an expansion 1x1 (skipped for t = 1), depthwise 3x3 (groups = hidden), linear 1x1 projection +
BN, residual add when stride 1 and in == out; the setting (t, c, n, s) = (1,16,1,1), (6,24,2,2),
(6,32,3,2), (6,64,2,2); last 1x1 conv to 320, adaptive_avg_pool2d, flatten, Dropout(0.2),
Linear, cross_entropy. kaiming_normal_(fan_out) init as torchvision does.
B16 x 3 x 64^2; stem 16 x 16 x 32^2 (1 MB); expanded 16 x 72 x 16^2 (1.2 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r9_mbv2_ir_stack"
TRAIN = True
B, IMG, NC, WIDTH = 16, 64, 100, 0.5


def _make_divisible(v, divisor=8, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class ConvBNReLU(nn.Sequential):
    def __init__(self, inp, oup, kernel_size=3, stride=1, groups=1):
        padding = (kernel_size - 1) // 2
        super().__init__(nn.Conv2d(inp, oup, kernel_size, stride, padding, groups=groups, bias=False),
                         nn.BatchNorm2d(oup), nn.ReLU6(inplace=True))


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU(inp, hidden, kernel_size=1))
        layers.extend([ConvBNReLU(hidden, hidden, stride=stride, groups=hidden),
                       nn.Conv2d(hidden, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup)])
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2Stack(nn.Module):
    def __init__(self):
        super().__init__()
        setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 2, 2]]
        input_channel = _make_divisible(32 * WIDTH)
        last_channel = 320
        features = [ConvBNReLU(3, input_channel, stride=2)]
        for t, c, n, s in setting:
            output_channel = _make_divisible(c * WIDTH)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel, s if i == 0 else 1, t))
                input_channel = output_channel
        features.append(ConvBNReLU(input_channel, last_channel, kernel_size=1))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last_channel, NC))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode='fan_out')
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x, y):
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        return F.cross_entropy(self.classifier(x), y)


def make():
    return MobileNetV2Stack(), (torch.randn(B, 3, IMG, IMG), torch.randint(0, NC, (B,)))
