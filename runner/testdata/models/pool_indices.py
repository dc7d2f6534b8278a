# Max pooling with indices, max_unpool and integer average pooling compiled (render/pool_nd.go),
# in training so the gradients are checked: a 2-D pool whose windows hold two NaNs (PyTorch's
# index is the last NaN, and the gradient goes there) and an all -inf block (the index stays on
# the window's first in-bounds element), unpooled again with overlapping windows (a repeated
# index: the last write wins, the gradient gathers); a dilated 1-D pool with ceil_mode; an
# adaptive 3-D pool with a None output size; avg_pool3d with ceil_mode; avg_pool2d of int64
# (truncating division).
import torch
import torch.nn.functional as F
from torch import nn

NAME = "pool_indices"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        x = torch.randn(2, 3, 9, 8)
        x[0, 0, 1, 1] = float("nan")
        x[0, 0, 1, 2] = float("nan")
        x[1, 2, 4:8, 2:6] = float("-inf")
        self.x = nn.Parameter(x)
        self.s = nn.Parameter(torch.randn(2, 4, 13))
        self.v = nn.Parameter(torch.randn(2, 2, 5, 7, 6))

    def forward(self, counts):
        v, i = F.max_pool2d(self.x, 3, stride=2, padding=1, return_indices=True)
        u = F.max_unpool2d(v * 2.0, i, 3, stride=2, padding=1, output_size=[9, 8])
        w, j = F.max_pool1d(self.s, 4, stride=3, padding=2, dilation=2, ceil_mode=True, return_indices=True)
        a, k = F.adaptive_max_pool3d(self.v, (None, 3, 4), return_indices=True)
        b = F.avg_pool3d(self.v, 2, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        c = F.avg_pool2d(counts, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        return torch.nan_to_num(v, nan=0.0, neginf=-1.0), i, u, w, j, a, k, b, c


def make():
    return M(), (torch.randint(-40, 40, (2, 3, 8, 7)),)
