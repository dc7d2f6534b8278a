import torch
from torch import nn
TRAIN = False
class M(nn.Module):
    def forward(self, x):
        y = x.clone()
        y[..., 0] = 0.0          # item assignment with an Ellipsis index
        return y
def make():
    return M(), (torch.randn(4, 6),)
