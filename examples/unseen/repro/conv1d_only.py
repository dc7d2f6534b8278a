"""Conv1d(128, 100, 3) alone on 32x128x64 (inference): gcdbg renders the direct scalar conv
loop (~1 GFLOP/s) instead of im2col+GEMM; compare conv2d_1x3_relu.py."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "conv1d_only"

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(128, 100, 3)
    def forward(self, x):
        return self.conv(x)

def make():
    return M(), (torch.randn(32, 128, 64),)
