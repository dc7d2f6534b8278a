"""nn.MultiheadAttention with dropout, in training, in a model with a bug of its own (a
broadcast that fails): the exporter's probe of the attention calls ran the model first and let
its error out as a bare traceback, exit 1 (review10 finding 10)."""
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
