"""CIFAR-style ResNet training step with mixup and label smoothing done inside the module (as
timm/fastai training wrappers do): a permutation of the batch drawn with torch.randperm, the
mixing weight lam given as a Python float (drawn from Beta(0.4, 0.4) by the data loader),
x_mix = lam * x + (1 - lam) * x[perm]; a ResNet of BasicBlocks (conv3x3-BN-ReLU-conv3x3-BN, a
1x1 conv + BN shortcut when the shape changes, stride 2 at stages 2 and 3), nn.AdaptiveAvgPool2d
(1), Linear; loss lam * CE(out, y, label_smoothing=0.1) + (1 - lam) * CE(out, y[perm], ...).
B32 x 3 x 32 x 32; stage-1 maps 32 x 32 x 32 x 32 (4.2 MB each), about 60 BN tensors."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "resnet_mixup"
TRAIN = True


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 1, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True))
        self.layer1 = nn.Sequential(BasicBlock(32, 32, 1), BasicBlock(32, 32, 1))
        self.layer2 = nn.Sequential(BasicBlock(32, 64, 2), BasicBlock(64, 64, 1))
        self.layer3 = nn.Sequential(BasicBlock(64, 128, 2), BasicBlock(128, 128, 1))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(128, num_classes)

    def forward(self, x):
        x = self.layer3(self.layer2(self.layer1(self.stem(x))))
        return self.fc(torch.flatten(self.pool(x), 1))


class MixupStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = ResNet()

    def forward(self, x, y, lam: float):
        perm = torch.randperm(x.size(0), device=x.device)
        x_mix = lam * x + (1 - lam) * x[perm]
        out = self.net(x_mix)
        loss = lam * F.cross_entropy(out, y, label_smoothing=0.1) + (1 - lam) * F.cross_entropy(out, y[perm], label_smoothing=0.1)
        return loss, out


def make():
    x = torch.randn(32, 3, 32, 32)
    y = torch.randint(0, 10, (32,))
    return MixupStep(), (x, y, 0.7)
