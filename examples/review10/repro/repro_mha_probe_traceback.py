import torch
from torch import nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2, dropout=0.1, batch_first=True)
    def forward(self, x):
        a, _ = self.mha(x, x, x)
        return a + torch.ones(3, 8)   # the model's own bug: shapes [3,5,8] + [3,8] do not broadcast
def make():
    return M(), (torch.randn(3, 5, 8),)
