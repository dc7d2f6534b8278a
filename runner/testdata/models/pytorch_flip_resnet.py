"""ResNet-18 as torchvision writes it, cut to the stem and the first stage, in training:
conv7x7/2 + BatchNorm2d + ReLU(inplace=True) + MaxPool2d(3, 2, 1), layer1 (two BasicBlocks, 64)
then
AdaptiveAvgPool2d(1), flatten, Linear to 10 classes and cross_entropy.
B8 x 3 x 96 x 96: stem map 8 x 64 x 48 x 48 (4.7 MB). Exported with --seed 4: PyTorch's float32 run
decides one element of a ReLU within rounding of 0 the other way from float64, and its gradients
upstream of it sit that flip's effect from F (runner TestPyTorchFlipsAreExplainedBeforeTheyBound;
examples/review7 finding 1)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "pytorch_flip_resnet"
TRAIN = True
B, IMG, NC = 8, 96, 10


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNetStem(nn.Module):
    def __init__(self, num_classes=NC):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(64, 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(64, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes:
            downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes, 1, stride, bias=False),
                                       nn.BatchNorm2d(planes))
        layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes
        for _ in range(1, blocks):
            layers.append(BasicBlock(planes, planes))
        return nn.Sequential(*layers)

    def forward(self, x, y):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        x = torch.flatten(self.avgpool(x), 1)
        return F.cross_entropy(self.fc(x), y)


def make():
    return ResNetStem().train(), (torch.randn(B, 3, IMG, IMG), torch.randint(0, NC, (B,)))
