"""A VGG-like CIFAR classifier (no BatchNorm) with LeakyReLU(0.1) and Dropout, in training:
[conv3x3 - LeakyReLU] x2 - MaxPool2d(2) per stage, 32/64/128 channels, then a classifier
Flatten - Dropout(0.5) - Linear(128*8*8, 256) - LeakyReLU(0.1) - Dropout(0.5) - Linear(256, 10)
and cross_entropy with label_smoothing=0.1.
B16 x 3 x 64 x 64: the first maps 16 x 32 x 64 x 64 (8.4 MB) x2."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r7_vgg_leaky"
TRAIN = True
B, IMG, NC = 16, 64, 10


def stage(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.LeakyReLU(0.1, inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.LeakyReLU(0.1, inplace=True),
                         nn.MaxPool2d(2))


class VGGLeaky(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(stage(3, 32), stage(32, 64), stage(64, 128))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(128 * 8 * 8, 256),
                                        nn.LeakyReLU(0.1, inplace=True), nn.Dropout(0.5), nn.Linear(256, NC))

    def forward(self, x, y):
        return F.cross_entropy(self.classifier(self.features(x)), y, label_smoothing=0.1)


def make():
    return VGGLeaky().train(), (torch.randn(B, 3, IMG, IMG), torch.randint(0, NC, (B,)))
