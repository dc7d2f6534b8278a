import torch
from torch import nn
TRAIN = False
class M(nn.Module):
    def forward(self, s):
        return torch.maximum(s, torch.tensor(float("nan")))
def make():
    return M(), (torch.randn(4, 6),)
