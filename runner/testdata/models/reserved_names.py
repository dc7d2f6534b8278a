"""Modules named as the nodes the pipeline adds: Meta's LLaMA reference code
names its LM head self.output, and a module may be named tangents_1 (the
joint graph's first tangent). Training: the partition's output node and the
joint's tangent took those names a second time (review10 finding 8:
"node output: name used twice")."""
import torch
from torch import nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.tangents_1 = nn.Linear(8, 8)
        self.output = nn.Linear(8, 4)

    def forward(self, x):
        return self.output(torch.relu(self.tangents_1(x))).sum()


def make():
    return M(), (torch.randn(3, 8),)
