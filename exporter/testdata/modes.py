"""Module modes: a frozen BatchNorm (eval) inside a model in training, a Dropout in training."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.frozen = nn.BatchNorm1d(4)
        self.bn = nn.BatchNorm1d(4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.bn(self.frozen(x)))


def make():
    m = Model()
    m.frozen.eval()
    return m, (torch.randn(6, 4),)
