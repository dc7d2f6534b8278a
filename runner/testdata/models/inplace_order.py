# A fused kernel's members do not run in the kernel's node order: the C renderer inlines a
# pointwise member whose value no other kernel reads and computes it where a later member
# loads it (render/cstyle.go). Two stores that overwrite a value such an inlined member still
# loads (sched.LoadsRunBy):
#  - the memory plan's in-place reuse: o = c + m may overwrite c (dead after this kernel), but
#    a = c * m is computed inside z = a * o, after o's store;
#  - a GEMM writing its epilogue's intermediate (render/gemm_inplace.go): the GEMM may write
#    t = tanh(x @ w) itself, but u = (x @ w) * b is computed inside z2 = u * t, after t's store.
# Inference, so the fused kernels are exactly these (no saved tensors become outputs).
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/inplace_order.py \
#         -o runner/testdata/inplace_order.json --seed 0 --runs 0
import torch
from torch import nn

NAME = "inplace_order"


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(32, 32) / 6)
        self.w2 = nn.Parameter(torch.randn(32, 32) / 6)
        self.w3 = nn.Parameter(torch.randn(32, 16) / 6)
        self.w = nn.Parameter(torch.randn(32, 32) / 6)
        self.w4 = nn.Parameter(torch.randn(32, 16) / 6)

    def forward(self, x, y, b):
        c = x @ self.w1
        m = y @ self.w2
        a = c * m
        o = c + m
        z = a * o
        q = o @ self.w3
        p = x @ self.w
        u = p * b
        t = p.tanh()
        z2 = u * t
        q2 = t @ self.w4
        return z, q, z2, q2


def make():
    return M(), (torch.randn(64, 32), torch.randn(64, 32), torch.randn(64, 32))
