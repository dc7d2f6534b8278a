"""Issue 15: a model of the kind users bring (exported by exporter/gcdbg_export.py with --train)."""
import math
import torch
import torch.nn.functional as F
from torch import nn
NAME = "gpt2block"
TRAIN = True
class Block(nn.Module):
    def __init__(self, C=16, H=4, T=8):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(C), nn.LayerNorm(C)
        self.attn = nn.Linear(C, 3 * C)
        self.proj = nn.Linear(C, C)
        self.fc, self.fc2 = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)
        self.H = H
        self.register_buffer("mask", torch.tril(torch.ones(T, T)).view(1, 1, T, T))
    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.attn(self.ln1(x)).split(C, dim=2)
        q = q.view(B, T, self.H, C // self.H).transpose(1, 2)
        k = k.view(B, T, self.H, C // self.H).transpose(1, 2)
        v = v.view(B, T, self.H, C // self.H).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        x = x + self.fc2(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))
        return x.pow(2).mean()
def make():
    return Block(), (torch.randn(2, 8, 16),)
