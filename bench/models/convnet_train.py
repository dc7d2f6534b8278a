"""Two conv layers with BatchNorm, ReLU, max-pool, global average pool and a Linear head,
batch 16 of 3x32x32; training of the parameters with frozen BatchNorm (eval mode, running
statistics), which the exporter's model.train() cannot switch back to batch statistics."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "convnet_train"
TRAIN = True


class FrozenBatchNorm2d(nn.Module):
    """BatchNorm2d in eval mode (running statistics, trainable affine) whatever model.train()
    says: F.batch_norm with training=False."""

    def __init__(self, c, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(c) + 0.1 * torch.randn(c))
        self.bias = nn.Parameter(0.1 * torch.randn(c))
        self.register_buffer("running_mean", 0.1 * torch.randn(c))
        self.register_buffer("running_var", torch.rand(c) + 0.5)

    def forward(self, x):
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            False, 0.0, self.eps)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.bn1 = FrozenBatchNorm2d(32)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.bn2 = FrozenBatchNorm2d(64)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = torch.relu(self.bn2(self.conv2(x)))
        return self.fc(torch.flatten(self.gap(x), 1))


def make():
    return ConvNet(), (torch.randn(16, 3, 32, 32),)
