"""An nn.MultiheadAttention with kdim/vdim and attention dropout in training: the exporter
traces a drawing attention through to record its dropout mask, which it does only for the
packed form, so it refuses this one saying what to change."""
import torch
from torch import nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.att = nn.MultiheadAttention(8, 2, dropout=0.1, kdim=6, vdim=6, batch_first=True)
    def forward(self, q, kv):
        return self.att(q, kv, kv)[0].sum()
def make():
    return M(), (torch.randn(2, 3, 8), torch.randn(2, 4, 6))
