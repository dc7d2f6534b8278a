"""A Hugging Face-style model returning a dict: gcdbg run labels each output with its key."""
import torch
from torch import nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(4, 3)

    def forward(self, x, y):
        logits = self.l(x)
        return {"loss": nn.functional.cross_entropy(logits, y), "logits": logits}


def make():
    return M(), (torch.randn(5, 4), torch.tensor([0, 1, 2, 1, 0]))
