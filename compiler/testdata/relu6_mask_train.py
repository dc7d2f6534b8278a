"""A per-channel affine and ReLU6 in training (MobileNetV2's BatchNorm + ReLU6(inplace) + 1x1 conv in small):
ReLU6 is a clamp(0, 6), two selects, and the backward recomputes it before the conv's backward and stores both masks (`lt` of the affine, `gt` of
the first select's result). With both stores, gcc's jump threading turned the two selects into
branches (the second compare is known false when the first select took 0) and if-conversion gave up
("control flow in loop"): a scalar loop with two data-dependent branches per element, 57x slower
than the vector loop on random signs, until builds passed -fno-thread-jumps
(compiler/pointwise_vec_test.go, TestReLU6MasksVectorize).

    /usr/bin/python3 exporter/gcdbg_export.py compiler/testdata/relu6_mask_train.py \
        -o compiler/testdata/relu6_mask_train.json --seed 0 --runs 0
"""
import torch
import torch.nn as nn

NAME = "relu6_mask_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(3 * torch.ones(8) + torch.randn(8))
        self.shift = nn.Parameter(0.5 * torch.randn(8))
        self.conv = nn.Conv2d(8, 8, 1, bias=False)
        self.act = nn.ReLU6(inplace=True)

    def forward(self, x):
        y = self.act(x * self.scale[:, None, None] + self.shift[:, None, None])
        return self.conv(y)


def make():
    x = torch.randn(4, 8, 16, 16)
    x[0, 0, 0, :8] = torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 2.0, 6.0 / 3.4, -1e-40])
    return M(), (x,)
