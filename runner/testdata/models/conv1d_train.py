# Conv1d in training (issue 13): PyTorch decomposes Conv1d into unsqueeze + conv2d, whose
# weight view [OC, CG, 1, KW] has stride 1 at the new axis; every such conv2d must take the
# im2col + GEMM path (render/conv.go convGEMM) forward and backward, not the direct loops.
# Padded, strided+dilated, grouped without bias, an unbatched (2-D) input, and a Conv2d
# whose weight is a transposed view (packed before its GEMM) and an unbatched (3-D) Conv2d.
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/conv1d_train.py \
#         -o runner/testdata/conv1d_train.json --seed 0 --runs 0
import torch
import torch.nn.functional as F
from torch import nn

NAME = "conv1d_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv1d(6, 8, 3, padding=1)
        self.b = nn.Conv1d(8, 4, 3, stride=2, dilation=2, groups=2, bias=False)
        self.u = nn.Parameter(0.3 * torch.randn(5, 6, 4))
        self.w2 = nn.Parameter(0.3 * torch.randn(4, 6, 3, 2))

    def forward(self, x, y, z):
        h = F.relu(self.a(x))
        h = self.b(h)
        v = F.conv1d(y, self.u, padding=2)  # unbatched: y is [6, 17]
        t = F.conv2d(z, self.w2.transpose(2, 3), padding=1)
        t2 = F.conv2d(z[1], self.w2, stride=(2, 1))  # unbatched: z[1] is [6, 7, 5]
        return h.sum(2), v, t, t2


def make():
    x = torch.randn(3, 6, 20)
    y = torch.randn(6, 17)
    z = torch.randn(2, 6, 7, 5)
    return M(), (x, y, z)
