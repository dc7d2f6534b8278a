"""Tensor.type(dtype) (guided-diffusion's ResBlock `self.emb_layers(emb).type(h.dtype)` and
QKVAttention's `torch.softmax(weight.float(), dim=-1).type(weight.dtype)`) is refused by
`gcdbg run`: 'unsupported Tensor method "type"'. x.to(dtype) and x.type_as(y) are supported."""
import torch
import torch.nn as nn

NAME = "r8_type_method"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)

    def forward(self, x):
        h = self.lin(x)
        w = torch.softmax(h.float(), dim=-1).type(h.dtype)
        return (w * x).sum()


def make():
    return M(), (torch.randn(4, 16),)
