import torch
from torch import nn
TRAIN = False
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("fill", torch.full((4,), float("nan")))
    def forward(self, s):
        return s + self.fill   # forward never writes `fill`
def make():
    return M(), (torch.randn(3, 4),)
