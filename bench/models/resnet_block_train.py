"""A small ResNet in training, BatchNorm in training mode (batch statistics, running statistics
updated): stem Conv2d 3->64 3x3 + BatchNorm + ReLU, max-pool 2, one basic block (two Conv2d
64->64 3x3 without bias, BatchNorm after each, the residual added before the last ReLU), global
average pool, Linear 64->10 and the cross-entropy loss of integer labels; batch 32 of 3x32x32."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "resnet_block_train"
TRAIN = True


class BasicBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + x)


class ResNetSmall(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(64)
        self.pool = nn.MaxPool2d(2)
        self.block = BasicBlock(64)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x, target):
        x = self.pool(torch.relu(self.bn(self.stem(x))))
        x = self.block(x)
        logits = self.fc(torch.flatten(self.gap(x), 1))
        return F.cross_entropy(logits, target)


def make():
    return ResNetSmall(), (torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,)))
