"""A NaN-filled buffer and a NaN constant, read and never written: the
exporter listed the constant among the mutated buffers (gcdbg run then
called it a MISMATCH it never writes) and refused the buffer as written
while torch.fx traced (review10 findings 6 and 7): torch.equal says NaN is
not NaN."""
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("fill", torch.full((4,), float("nan")))

    def forward(self, s):
        a = torch.where(torch.isnan(self.fill), s, self.fill)
        return torch.maximum(a, torch.tensor(float("nan"))).nan_to_num(0.5) + a


def make():
    return M(), (torch.randn(4),)
