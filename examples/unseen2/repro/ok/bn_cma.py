"""BatchNorm1d(momentum=None): cumulative moving average, uses num_batches_tracked."""
import torch
import torch.nn as nn
TRAIN = True
def make():
    m = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16, momentum=None), nn.ReLU(), nn.Linear(16, 1))
    m[1].num_batches_tracked.fill_(3)
    return m, (torch.randn(32, 8),)
