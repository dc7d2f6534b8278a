"""softmax over the last dim scaled by its row sum's reciprocal, over dim 0 divided (PyTorch's
CPU kernels), and SiLU as
x / (1 + exp(-x)) in an inference graph (stages/decompositions.go), on edge values;
PyTorch's results are the reference. softmax rows of 1000 (not a multiple of any
vector width): random, NaN, +Inf, all -Inf, half masked with -Inf, magnitudes whose
exps underflow to denormals or 0, -0, a repeated max. SiLU on random values and
NaN, +-Inf, +-0, denormals, +-88/89/100/104 (exp overflow, denormal results), +-1e30.

    /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/row_recip.py \
        -o runner/testdata/row_recip.json --seed 0 --runs 0
"""
import torch
import torch.nn.functional as F

NAME = "row_recip"


def f(x, z, w):
    # over dim 0 PyTorch's kernel divides (_vec_softmax), over the last dim it multiplies
    return F.softmax(x, dim=-1), F.silu(z), F.softmax(w, dim=0)


def make():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(10, 1000, generator=g) * 3
    x[1, 7] = float("nan")                       # NaN: the row is NaN
    x[2, 500] = float("inf")                     # +Inf: Inf - Inf is NaN
    x[3, :] = float("-inf")                      # all -Inf: NaN
    x[4, 500:] = float("-inf")                   # a causal-style mask: exp(-Inf) = 0
    x[5, :] = x[5, :] * 40                       # exps down to denormals and 0
    x[6, :] = -0.0                               # uniform 1/1000
    x[7, :] = torch.randn(1000, generator=g) * 1e4
    x[8, ::3] = 5.0                              # a repeated max
    x[9, :] = x[9, :] + 1e6                      # a large common offset
    special = torch.tensor([float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-40, -1e-40,
                            88.0, -88.0, 88.7, -88.7, 89.0, -89.0, 100.0, -100.0, 104.0, -104.0,
                            -87.3, -90.0, -95.0, -103.0, 1e30, -1e30, 1.0, -1.0, 20.0, -20.0])
    z = torch.cat([torch.randn(4000, generator=g) * 4, torch.linspace(-110, 110, 2001), special])
    w = torch.randn(6, 200, generator=g) * 3
    w[2, 10] = float("nan")
    w[:3, 20] = float("-inf")
    return f, (x, z, w)
