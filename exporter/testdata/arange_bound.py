"""torch.arange bound before tracing (`from torch import arange`) of a traced size: fx fails on it
(the tracer records only torch.arange); refused saying to call torch.arange or use a buffer."""
import torch
from torch import arange


class M(torch.nn.Module):
    def forward(self, x):
        return x + arange(0, x.shape[1])


def make():
    return M(), (torch.randn(2, 5),)
