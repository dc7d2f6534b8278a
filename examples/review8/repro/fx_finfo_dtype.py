"""`torch.finfo(scores.dtype).min` as a mask fill value (ESPnet's attention, Hugging Face
transformers' extended attention masks): the exporter refuses it with
"TypeError: finfo(): argument 'type' (position 1) must be torch.dtype, not _Attribute" and the
generic advice about .item()/control flow, although x.dtype is known while tracing (the exporter
records it in every node's meta). torch.finfo(torch.float32).min works."""
import torch
import torch.nn as nn

NAME = "r8_fx_finfo_dtype"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(8, 8)

    def forward(self, x, m):
        s = self.l(x)
        s = s.masked_fill(m, torch.finfo(s.dtype).min)
        return s.softmax(-1).sum()


def make():
    return M(), (torch.randn(2, 8), torch.rand(2, 8) > 0.5)
