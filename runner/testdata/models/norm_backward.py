# BatchNorm (training) and GroupNorm backward in one pass (issue 13; stages/simplify_bwd.go,
# runner/norm_backward_test.go): three independent branches, each one normalization, so no
# reduction of a branch's backward may wait for another of its full-size reductions.
#   - BatchNorm2d(6) in training (batch statistics, running stats updated), ReLU, times a
#     fixed tensor k (the gradient reaching the norm is not uniform), plus a residual; one
#     channel's weight is 0 (a zero-initialised gamma).
#   - GroupNorm(3, 6) of its own input, SiLU, times k.
#   - BatchNorm2d(4) of an input with a NaN in channel 1 and +Inf in channel 2, times a
#     tensor with a NaN in channel 3: those channels' values and gradients are NaN (or Inf)
#     in PyTorch and must sit at the same places.
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/norm_backward.py \
#         -o runner/testdata/norm_backward.json --seed 0 --runs 0
import torch
import torch.nn.functional as F
from torch import nn

NAME = "norm_backward"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(6)
        self.gn = nn.GroupNorm(3, 6)
        self.bad = nn.BatchNorm2d(4)

    def forward(self, x, k, u, z, kz):
        y = torch.relu(self.bn(x)) * k + x
        g = F.silu(self.gn(u)) * k
        n = self.bad(z) * kz
        return y, g, n


def make():
    torch.manual_seed(0)
    m = M()
    with torch.no_grad():
        for mod in (m.bn, m.gn, m.bad):
            mod.weight.uniform_(0.5, 1.5)
            mod.bias.uniform_(-0.5, 0.5)
        m.bn.weight[4] = 0
        m.bn.running_mean.uniform_(-0.3, 0.3)
        m.bn.running_var.uniform_(0.5, 1.5)
    x = torch.randn(8, 6, 12, 12) * 2 + 0.5
    k = torch.randn(8, 6, 12, 12)
    u = torch.randn(8, 6, 12, 12) - 1
    z = torch.randn(4, 4, 10, 10)
    z[2, 1, 3, 4] = float("nan")
    z[1, 2, 5, 5] = float("inf")
    kz = torch.randn(4, 4, 10, 10)
    kz[0, 3, 7, 1] = float("nan")
    return m, (x.requires_grad_(), k, u.requires_grad_(), z.requires_grad_(), kz)
