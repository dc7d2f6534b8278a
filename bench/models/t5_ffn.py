"""T5-style feed-forward with tanh-GELU (gelu_new): 512 -> 2048 -> 512 over 32 x 128 tokens; inference."""
import torch
import torch.nn as nn

NAME = "t5_ffn"


class FFN(nn.Module):
    def __init__(self, d=512, f=2048):
        super().__init__()
        self.wi = nn.Linear(d, f, bias=False)
        self.wo = nn.Linear(f, d, bias=False)

    def forward(self, x):
        return self.wo(nn.functional.gelu(self.wi(x), approximate="tanh"))


def make():
    return FFN().eval(), (torch.randn(32, 128, 512),)
