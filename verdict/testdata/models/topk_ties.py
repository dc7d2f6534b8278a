"""Retrieval scores with many exact ties (relu of a shifted projection):
topk, argmax and argsort indices differ from PyTorch only among ties,
whose order PyTorch leaves unspecified."""
NAME = "topk_ties"
import torch
from torch import nn

class Retriever(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 64)
    def forward(self, x):
        scores = torch.relu(self.proj(x) - 1.0)       # sparse, many exact zeros
        vals, idx = scores.topk(12, dim=-1)
        best = scores.argmax(dim=-1)
        ranks = scores.argsort(dim=-1, descending=True)
        return vals, idx, best, ranks

def make():
    return Retriever(), (torch.randn(16, 32),)
