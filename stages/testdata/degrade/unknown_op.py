"""A model with a deliberately unknown op in the middle (graceful degradation, issue 15): a
function torch.fx keeps as a leaf (`torch.fx.wrap`), so the captured graph holds a call gcdbg
will never know. Every stage before the one that meets it must still show its artifact.
    /usr/bin/python3 exporter/gcdbg_export.py stages/testdata/degrade/unknown_op.py \
        -o stages/testdata/degrade/unknown_op.json --seed 0 --runs 0"""
import torch
from torch import nn

NAME = "unknown_op"
TRAIN = True


@torch.fx.wrap
def gcdbg_unknown_scale(x):
    return x * 2.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        h = torch.relu(self.fc(x))
        s = gcdbg_unknown_scale(h)
        return torch.sin(s).sum(dim=1)


def make():
    return Model(), (torch.randn(2, 4),)
