"""A text classifier's embedding with padding_idx: PyTorch leaves the
padding row's gradient zero. Used to show the verdict's reference check
catches a semantics gcdbg shares between its eager reference and its
compiled code."""
import torch
from torch import nn

NAME = "embed_pad"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16, padding_idx=0)
        self.fc = nn.Linear(16, 4)

    def forward(self, idx):
        return self.fc(self.emb(idx).mean(dim=1))


def make():
    idx = torch.randint(0, 50, (8, 12))
    idx[:, -4:] = 0
    return M(), (idx,)
