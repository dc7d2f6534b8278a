# Python's math module on sizes (nanoGPT's 1.0 / math.sqrt(k.size(-1)) and friends): the
# values CPython computes are returned as outputs (0-d float64/int64 tensors in expected) so a
# test can check gcdbg folds them bit for bit. The sizes are ones where Go's math package and
# glibc's libm differ in the last place (log(3), exp(22), cos(5), log10(5), atan(4), log2(3)).
import math

import torch
from torch import nn

NAME = "pymath"


class M(nn.Module):
    def forward(self, x):
        n = x.size(-1)  # 3
        m = x.size(0)  # 22
        scale = 1.0 / math.sqrt(n)
        y = x * scale * math.log(n) + math.cos(n + 2)
        return (y, math.log(n), math.exp(m), math.cos(n + 2), math.log10(n + 2), math.atan(n + 1),
                math.log2(n), math.floor(math.log2(m)), math.pow(m, 0.5), math.tanh(n / m),
                math.log(m, n), math.isfinite(scale))


def make():
    return M(), (torch.randn(22, 3),)
