"""Strided slicing in training, as a user downsamples by hand: Conv1d(4, 16, 3) -> h[..., ::2] *
sigmoid(h[..., 1::2]) (a gated stride-2 downsample), AvgPool1d(4, 2) without padding, ReLU, mean.
The backward scatters through strided slice_scatters whose source index is clamp(floordiv(x -
start, step), 0, n - 1) of the loop variable: computed, not data. Generated C loads it unchecked
and vectorized (render/computed_index.go); the gradients must still be PyTorch's."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "strided_slice_train"
TRAIN = True


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv1d(4, 16, 3, padding=1)
        self.pool = nn.AvgPool1d(4, stride=2)

    def forward(self, x):
        h = self.c(x)
        g = h[..., ::2] * torch.sigmoid(h[..., 1::2])
        return F.relu(self.pool(g)).mean()


def make():
    return Net(), (torch.randn(4, 4, 1000),)
