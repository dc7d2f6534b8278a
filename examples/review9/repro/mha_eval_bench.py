"""Inference with an nn.MultiheadAttention (TRAIN = False): the exporter keeps the module as a
leaf whose params include out_proj's ("out_proj.weight"); `gcdbg bench` cannot rebuild it for
its live PyTorch timing (KeyError: 'parameter name can't contain "."') and uses the recorded
time. Training traces of the same module trace through it and bench fine."""
import torch
import torch.nn as nn

NAME = "r9_mha_eval_bench"
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
