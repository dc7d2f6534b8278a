# .values / .indices of the named tuples torch returns (max/min along a dim, sort, topk):
# gcdbg reads them as getitem 0 / 1; in training so the grads flow
# through .values.
import torch
from torch import nn

NAME = "namedtuple_fields"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 8)

    def forward(self, x):
        h = self.lin(x)
        a = h.max(dim=-1).values + h.min(-1).values
        i = h.max(dim=-1).indices + h.min(dim=1).indices
        s = h.sort(dim=-1, descending=True).values[:, :3]
        t = h.topk(2, dim=-1).values
        return a, i, s, t, h.sort(-1).indices, h.topk(3).indices


def make():
    return M(), (torch.randn(5, 6),)
