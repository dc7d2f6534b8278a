# Max pooling without return_indices where windows hold equal maxima (values drawn from {-1, 0, 1},
# so most windows tie) and NaNs, in training so the gradients are checked: PyTorch's CPU kernels
# (DilatedMaxPool3d.cpp, AdaptiveMaxPoolKernel.cpp) pick one index per window, the first maximum
# in scan order or the last NaN, and the backward sends the window's whole gradient there, where a
# maximum chain would split it between the tied elements. Each pooled result is scaled by a fixed
# tensor of distinct weights, so a gradient sent to another window's index shows too.
# max_pool3d: non-overlapping, overlapping with padding, dilated, and an unbatched [C, D, H, W]
# input; adaptive_max_pool1d/2d/3d with windows that overlap (sizes not divisible), a None output
# size and unbatched inputs; max_pool2d (its own kernels, MaxPoolKernel.cpp: two NaNs in a window
# sent the gradient to the first) and max_pool1d the same way.
import torch
import torch.nn.functional as F
from torch import nn

NAME = "pool_ties"
TRAIN = True


def ties(*shape):
    return torch.randint(-1, 2, shape).float()


class M(nn.Module):
    def __init__(self):
        super().__init__()
        v = ties(2, 3, 6, 7, 8)
        v[0, 0, 0, 0, 1] = float("nan")  # two NaNs in one 2x2x2 window: the last is picked
        v[0, 0, 1, 1, 0] = float("nan")
        v[1, 2, 2:4, 2:4, 2:4] = 0.0  # an all-zero window
        v[1, 1, 0:2, 0:2, 0:4] = float("-inf")  # all -inf windows
        self.v = nn.Parameter(v)
        self.u = nn.Parameter(ties(3, 5, 6, 7))
        s = ties(2, 3, 11)
        s[1, 0, 3] = float("nan")
        s[1, 0, 4] = float("nan")
        self.s = nn.Parameter(s)
        q = ties(2, 3, 7, 9)
        q[0, 1, 2, 2] = float("nan")
        self.q = nn.Parameter(q)
        self.r = nn.Parameter(ties(3, 5, 6))
        self.w = nn.Parameter(ties(2, 2, 5, 6, 7))
        x = ties(2, 3, 7, 8)
        x[0, 0, 0, 0] = float("nan")
        x[0, 0, 1, 1] = float("nan")
        x[1, 2, 2:6, 2:6] = float("-inf")
        self.x = nn.Parameter(x)

        with torch.no_grad():  # distinct weights per output element
            for i, y in enumerate(self.pools()):
                self.register_buffer("k%d" % i, torch.arange(1.0, y.numel() + 1.0).reshape(y.shape))

    def pools(self):
        return [
            F.max_pool3d(self.v, 2),
            F.max_pool3d(self.v, 3, stride=1, padding=1),
            F.max_pool3d(self.v, (2, 3, 2), stride=(1, 2, 2), dilation=(2, 1, 2)),
            F.max_pool3d(self.u, 2, stride=(1, 2, 1)),
            F.adaptive_max_pool1d(self.s, 4),
            F.adaptive_max_pool1d(self.s, 11),
            F.adaptive_max_pool2d(self.q, (3, 4)),
            F.adaptive_max_pool2d(self.q, (None, 2)),
            F.adaptive_max_pool2d(self.r, 4),
            F.adaptive_max_pool3d(self.w, (2, 4, 3)),
            F.adaptive_max_pool3d(self.w[0], 3),
            F.max_pool2d(self.x, 2),
            F.max_pool2d(self.x, 3, stride=1, padding=1),
            F.max_pool2d(self.x, (2, 3), stride=2, dilation=(2, 1), ceil_mode=True),
            F.max_pool1d(self.s, 3, stride=1, padding=1),
        ]

    def forward(self, scale):
        return tuple(y * getattr(self, "k%d" % i) * scale for i, y in enumerate(self.pools()))


def make():
    return M(), (torch.tensor(1.0),)
