# A Hugging Face style model: forward returns a dict (with a tuple inside it).
import torch
from torch import nn
import torch.nn.functional as F

TRAIN = True


class Cls(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(16, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, x, labels):
        pre = self.body(x)
        post = torch.relu(pre)
        logits = self.head(post)
        return {"logits": logits, "loss": F.cross_entropy(logits, labels), "hidden": (pre, post)}


def make():
    return Cls(), (torch.randn(8, 16), torch.randint(0, 4, (8,)))
