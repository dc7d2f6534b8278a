"""Embedding lookup in training, for the gather row loops (render/gather.go) and the compiled
long-index scatter_add of its gradient: a 1000 x 64 table, 16 x 8 ids with repeats (rows whose
gradients add up), the gradient of the table.

    /usr/bin/python3 exporter/gcdbg_export.py compiler/testdata/gather_rows.py \
        -o compiler/testdata/gather_rows.json --seed 0 --runs 0
"""
import torch
import torch.nn as nn

NAME = "gather_rows"
TRAIN = True


def make():
    torch.manual_seed(0)
    m = nn.Embedding(1000, 64)
    ids = torch.randint(0, 40, (16, 8))  # 128 ids over 40 rows: most rows repeat
    ids[0, 0] = 999  # the last row
    return m, (ids,)
