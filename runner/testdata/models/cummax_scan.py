# cummax and cummin compiled as linear scans carrying values and int64 indices, in training
# so the grads (cummaxmin_backward: scatter_add of the grad at the indices) are checked:
# rows of a parameter, a transposed (strided) view along dim 0, values with ties made by
# rounding (x + (round(x) - x).detach(): the latest equal element takes the grad, as in
# PyTorch), int32 values, NaN that sticks (each later NaN takes the index; a NaN-valued loss term whose grad
# goes to the NaN's index), a 0-d input and
# a long row (8,000) split over threads.
import torch
from torch import nn

NAME = "cummax_scan"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 40))
        self.u = nn.Parameter(torch.randn(5, 7, 3))

    def forward(self, x, long):
        v1, i1 = torch.cummax(self.w, 1)
        v2, i2 = torch.cummin(self.u.transpose(0, 2), 0)
        q = self.w + (torch.round(self.w * 2) / 2 - self.w).detach()
        v3, i3 = torch.cummax(q, 1)
        v4, i4 = torch.cummin(q, 0)
        n5 = torch.cummin(torch.round(x * 3).to(torch.int32), 1)
        y = torch.where(x > 1.0, torch.full_like(x, float("nan")), x)
        v6, i6 = torch.cummax(y, 1)
        v7, i7 = torch.cummax(self.w[2, 3] * 2.0, 0)
        v8, i8 = torch.cummin(long, -1)
        v9, i9 = torch.cummax(torch.where(self.u[0] > 0.8, torch.full_like(self.u[0], float("nan")), self.u[0]), 0)
        loss = (v1 * 1.5).sum() + v2.tanh().sum() + (v3 * v3).sum() + v4.sum() + v7 + (self.w.sum() * v8[:, -1]).sum()
        return loss, i1, i2, i3, i4, n5.values, n5.indices, v6, i6, i7, i8, (v9 * 3.0).sum(), i9


def make():
    return M(), (torch.randn(4, 50), torch.randn(3, 8000))
