"""Graph-break pieces that call modules held in globals (proj, head), as a
user splitting a model by hand writes them."""
import torch
from torch import nn

NAME = "global_module"
TRAIN = True
proj = nn.Linear(4, 4)
head = nn.Linear(4, 2)


def piece0(x):
    B, C = x.shape
    return proj(x).relu().view(B, C)


def piece1(h):
    return head(h).sum()


def make():
    x = torch.randn(3, 4)
    h = piece0(x).detach()
    return {"model": piece0, "inputs": (x,),
            "graph_breaks": [(piece0, (x,), "data-dependent branch"), (piece1, (h,), None)]}
