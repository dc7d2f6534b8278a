"""A model that fails on its own example inputs (a Linear of the wrong width): the exporter
says so, naming the node and the line, without ShapeProp's tracebacks."""
import torch
from torch import nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(19, 4)
    def forward(self, x):
        return self.fc(x.flatten(1))
def make():
    return M(), (torch.randn(2, 13),)
