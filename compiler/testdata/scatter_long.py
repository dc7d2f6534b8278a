"""scatter_add with long indices (more than 16 entries along dim), for the generated C of
render/scatter_extern.go: along the last dim of a 2-D tensor, along the middle dim of a 3-D one,
and with src a transposed view; repeated indices add up.

    /usr/bin/python3 exporter/gcdbg_export.py compiler/testdata/scatter_long.py \
        -o compiler/testdata/scatter_long.json --seed 0 --runs 0
"""
import torch

NAME = "scatter_long"


def f(x, i1, s1, y, i2, s2, s3):
    a = torch.scatter_add(x, 1, i1, s1)
    b = torch.scatter_add(y, 1, i2, s2)
    c = torch.scatter_add(x * 2, 1, i1, s3.t())
    return a, b, c


def make():
    torch.manual_seed(0)
    x = torch.randn(5, 7)
    i1 = torch.randint(0, 7, (5, 40))
    s1 = torch.randn(5, 40)
    y = torch.randn(3, 6, 4)
    i2 = torch.randint(0, 6, (3, 33, 4))
    s2 = torch.randn(3, 33, 4)
    s3 = torch.randn(40, 5)
    return f, (x, i1, s1, y, i2, s2, s3)
