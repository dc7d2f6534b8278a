"""ResNet stem max-pool (kernel 3, stride 2, padding 1) in training on 16x32x64x64: the
forward is an extern kernel and the backward a fused max_pool2d_backward kernel; in
examples/unseen/resnet_small they were the two slowest non-conv kernels."""
import torch
import torch.nn as nn

NAME = "maxpool_train"

def make():
    x = torch.randn(16, 32, 64, 64, requires_grad=True)
    return {"model": nn.MaxPool2d(3, 2, 1), "inputs": (x,), "train": True}
