"""Row reductions over special values, for the vector reduce loops (render/vector.go):
rows of 2500 (two chunks of 1024 and a tail, not a multiple of any vector width) holding
NaN, +-Inf, -0 and large and small magnitudes; PyTorch's results are the reference.

    /usr/bin/python3 exporter/gcdbg_export.py compiler/testdata/vector_reductions.py \
        -o compiler/testdata/vector_reductions.json --seed 0 --runs 0
"""
import torch
import torch.nn.functional as F

NAME = "vector_reductions"


def f(x, n):
    return (torch.amax(x, dim=-1), torch.amin(x, dim=-1), x.sum(dim=-1), x.mean(dim=-1),
            F.softmax(x, dim=-1), F.log_softmax(x, dim=-1),
            F.layer_norm(x, (2500,)), n.sum(dim=-1), torch.amax(n, dim=-1), torch.amin(n, dim=-1))


def make():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(10, 2500, generator=g) * 3
    x[1, 7] = float("nan")                      # NaN early in a row
    x[2, 2499] = float("nan")                   # NaN in the tail
    x[3, 1500] = float("inf")                   # +Inf in the second chunk
    x[4, 3] = float("-inf")                     # -Inf
    x[5, :] = -0.0                              # a row of -0
    x[6, 1000] = float("inf")
    x[6, 2000] = float("-inf")                  # +Inf and -Inf: NaN sums
    x[7, :] = x[7, :] * 1e15                    # large magnitudes (squares stay finite)
    x[8, :] = torch.full((2500,), -1.0)
    x[8, 2222] = float("nan")
    x[8, 5] = float("inf")                      # NaN after an Inf
    x[9, :] = x[9, :] + 100                     # a common offset
    n = torch.randint(-1000, 1000, (10, 2500), generator=g)
    n[0, :] = 2 ** 40                           # int64 sums beyond int32
    return f, (x, n)
