"""InstanceNorm2d(track_running_stats=True) in training: running stats are averaged over the batch."""
import torch
import torch.nn as nn
TRAIN = True
def make():
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.InstanceNorm2d(4, affine=True, track_running_stats=True, momentum=0.3))
    return m, (torch.randn(3, 3, 9, 9) * 2 + 1,)
