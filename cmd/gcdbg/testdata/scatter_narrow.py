"""A scatter_add whose index is narrower than self off its dim (index [2, 3] into self [4, 6]
along dim 1): the loop IR has no form for it, so it stays an eager fallback with an int
constant argument (dim), what cmd/gcdbg's TestRunCompiledDirWithIntConstFallback needs.

    /usr/bin/python3 exporter/gcdbg_export.py cmd/gcdbg/testdata/scatter_narrow.py \
        -o cmd/gcdbg/testdata/scatter_narrow.json --seed 0 --runs 0
"""
import torch

NAME = "scatter_narrow"


def f(x, src):
    idx = torch.tensor([[0, 5, 2], [1, 1, 4]])
    return torch.scatter_add(x * 2, 1, idx, src[:2, :3]) + 1


def make():
    return f, (torch.randn(4, 6), torch.randn(4, 6))
