# forward returns a dict with a None value (loss without labels): not a tensor output.
import torch
from torch import nn


class Cls(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return {"logits": self.head(x), "loss": None}


def make():
    return Cls(), (torch.randn(8, 16),)
