"""RMSNorm (LLaMA style) followed by SiLU over 4096 rows of 1024; inference."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "rmsnorm_silu"


class RMSNormSiLU(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))

    def forward(self, x):
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        return F.silu(y)


def make():
    return RMSNormSiLU(1024), (torch.randn(4096, 1024),)
