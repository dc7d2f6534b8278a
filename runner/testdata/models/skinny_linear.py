# Linear layers of few rows (the skinny-M GEMM candidate, render/gemm_skinny.go; choice 128 on the
# OpenMP team, 129 on one thread): an LSTM step's two input and hidden products added, 12 rows
# (two tiles of 5 and 2 single rows), K = 67 (not a multiple of the 8 lanes), N = 163 (three
# tiles' worth of columns short of a multiple of 5), then a Linear of 2 rows (single rows only,
# below the team's size), and x @ u with u stored [in, out] (the NN path: 12 rows, 70 columns, two
# blocks of 32 and 6). x's row 3 holds a NaN, h's row 7 +Inf and row 9 -Inf: their rows of the
# gates (and row 3 of x @ u) are NaN or +-Inf by the weights' signs, as in PyTorch's GEMM.
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/skinny_linear.py \
#         -o runner/testdata/skinny_linear.json --seed 0 --runs 0
import torch
from torch import nn

NAME = "skinny_linear"


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.ih = nn.Linear(67, 163)
        self.hh = nn.Linear(67, 163)
        self.o = nn.Linear(163, 40)
        self.u = nn.Parameter(torch.randn(67, 70) / 8)

    def forward(self, x, h):
        g = self.ih(x) + self.hh(h)
        return g, self.o(torch.tanh(g[:2])), x @ self.u


def make():
    x = torch.randn(12, 67)
    h = torch.randn(12, 67)
    x[3, 5] = float("nan")
    h[7, 10] = float("inf")
    h[9, 2] = float("-inf")
    return M().eval(), (x, h)
