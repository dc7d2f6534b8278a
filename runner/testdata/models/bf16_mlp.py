# A bfloat16 model (weights and input): --device eager runs it without the C renderer and
# matches PyTorch, and so does --device cpu (16-bit storage, float compute: render/narrow.go).
import torch
from torch import nn

NAME = "bf16_mlp"


def make():
    m = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4),
                      nn.LogSoftmax(dim=-1)).to(torch.bfloat16)
    x = torch.randn(8, 16).to(torch.bfloat16)
    return m, (x,)
