"""Sorts of rows long enough for the radix path (render/sort.go, 512 and
more float32 elements): ties (values from a small set), NaN, +-Inf, -0 and
+0 in every row; ascending and descending, stable (ties in index order, the
order gcdbg's sort keeps), along the last dim and along dim 0 (strided
rows); values and indices are outputs, and a gradient flows through the
sorted values."""
import torch
from torch import nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.linspace(-1, 1, 700))

    def forward(self, x):
        y = x * self.w
        a, ia = torch.sort(y, dim=-1, stable=True)
        d, id_ = torch.sort(y, dim=-1, descending=True, stable=True)
        c, ic = torch.sort(y.t(), dim=0, descending=True, stable=True)
        loss = (a[:, :50] * torch.arange(50.0)).nan_to_num(0.0, 0.0, 0.0).sum() + \
            (d[:, -30:]).nan_to_num(0.0, 0.0, 0.0).sum()
        return loss, a, ia, d, id_, c, ic


def make():
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-4, 5, (3, 700), generator=g).float()
    x[:, 5] = float("nan")
    x[:, 77] = float("inf")
    x[:, 300] = float("-inf")
    x[0, 400:420] = -0.0
    x[1, 123] = float("nan")
    return M(), (x,)
