"""Inference with an nn.MultiheadAttention leaf (examples/review9 finding 2): its params include
out_proj's ("out_proj.weight"), which bench_eager.py's rebuild registered as a dotted parameter
name (KeyError), and `gcdbg bench` fell back to the recorded time."""
import torch
import torch.nn as nn

NAME = "mha_eval"
TRAIN = False


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x):
        out, _ = self.attn(x, x, x, need_weights=False)
        return out


def make():
    return M(), (torch.randn(2, 5, 32),)
