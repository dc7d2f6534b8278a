"""Sums of squares, which keep float partials in the vector lanes (render/reduce.go,
floatLaneSum): layer_norm's centred sum of squares, RMSNorm's mean of x.pow(2) and (x * x).sum
over rows of 1000 (not a multiple of any vector width), beside a plain sum (double lanes). Rows
hold NaN, +-Inf, -0, magnitudes whose squares overflow float32 (+Inf sums), tiny magnitudes whose
squares are denormal or 0, and a large common offset; PyTorch's results are the reference.

    /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/square_sums.py \
        -o runner/testdata/square_sums.json --seed 0 --runs 0
"""
import torch
import torch.nn.functional as F

NAME = "square_sums"


def f(x, y, w):
    rms = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    return F.layer_norm(x, (1000,)), rms, (y * y).sum(-1), y.sum(-1)


def make():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(12, 1000, generator=g) * 3
    x[1, 7] = float("nan")                      # NaN early in a row
    x[2, 999] = float("nan")                    # NaN in the tail
    x[3, 500] = float("inf")                    # +Inf: Inf squares
    x[4, 3] = float("-inf")                     # -Inf: its square is +Inf too
    x[5, :] = -0.0                              # a row of -0: squares +0
    x[6, 100] = float("inf")
    x[6, 200] = float("-inf")                   # +Inf and -Inf
    x[7, :] = x[7, :] * 1e19                    # squares ~1e39 overflow: +Inf sums
    x[8, :] = x[8, :] * 1e-22                   # squares ~1e-43: denormal or 0
    x[9, :] = x[9, :] + 1000                    # a common offset (layer_norm centres it)
    x[10, :] = x[10, :] * 1e15                  # large squares that stay finite
    x[11, 0] = float("nan")
    x[11, 1] = float("inf")                     # NaN before an Inf
    w = torch.randn(1000, generator=g)
    # layer_norm gets the rows without the overflowing one: where the variance overflows
    # float32, PyTorch's layer_norm gives NaN and gcdbg 0 (and its float64 reference a
    # number), with double lanes as with float lanes; not what this fixture is about.
    y = x.clone()
    x[7, :] = torch.randn(1000, generator=g)
    return f, (x, y, w)
