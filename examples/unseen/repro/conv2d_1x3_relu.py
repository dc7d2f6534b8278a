"""The same convolution as conv1d_relu.py written as Conv2d(128, 100, (1, 3)) on 32x128x1x64:
gcdbg uses im2col+GEMM (~68 GFLOP/s), about 100x faster than the Conv1d form."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "conv2d_1x3_relu"

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(128, 100, (1, 3))
    def forward(self, x):
        return F.relu(self.conv(x))

def make():
    return M(), (torch.randn(32, 128, 1, 64),)
