"""A per-channel affine, ReLU and max-pool in training (convnet_train's frozen BatchNorm + ReLU +
MaxPool2d in small): the backward recomputes the ReLU and stores its `gt` mask from the select's
result before the max-pool backward, then selects the gradient by that bool mask. gcc left both loops scalar (a data-dependent branch per
element) until bool loads read uint8_t and -fno-tree-pre kept the selects branch-free
(compiler/pointwise_vec_test.go).

    /usr/bin/python3 exporter/gcdbg_export.py compiler/testdata/relu_mask_train.py \
        -o compiler/testdata/relu_mask_train.json --seed 0 --runs 0
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "relu_mask_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(8) + 0.1 * torch.randn(8))
        self.shift = nn.Parameter(0.1 * torch.randn(8))

    def forward(self, x):
        return F.max_pool2d(torch.relu(x * self.scale[:, None, None] + self.shift[:, None, None]), 2)


def make():
    x = torch.randn(4, 8, 16, 16)
    x[0, 0, 0, :4] = torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0])
    return M(), (x,)
