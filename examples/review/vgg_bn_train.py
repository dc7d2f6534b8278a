"""A VGG-style conv net in training, written as users write it: three stages of two 3x3 Conv2d +
BatchNorm2d (training mode: batch statistics, running statistics updated) + ReLU, max-pool after
each stage, dropout before the classifier, Linear 512 -> 100, cross-entropy of labels; batch 8 of
3x64x64. Uses this session's changes: per-image conv GEMMs chosen between OpenBLAS and oneDNN,
the conv plane helpers, BatchNorm statistics in one kernel."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "vgg_bn_train"
TRAIN = True


def block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.MaxPool2d(2))


class VGGSmall(nn.Module):
    def __init__(self, classes=100):
        super().__init__()
        self.features = nn.Sequential(block(3, 32), block(32, 64), block(64, 128))
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(128 * 2 * 2, classes)

    def forward(self, x, target):
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, 2).flatten(1)
        return F.cross_entropy(self.fc(self.drop(x)), target)


def make():
    return VGGSmall(), (torch.randn(8, 3, 64, 64), torch.randint(0, 100, (8,)))
