"""nn.Embedding(max_norm=1.0): PyTorch renormalizes the looked-up rows of the weight in place
inside forward (embedding_renorm_), so the parameter itself changes during the step."""
import torch
import torch.nn as nn

NAME = "r9_embedding_max_norm"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8, max_norm=1.0)
        self.fc = nn.Linear(8, 3)

    def forward(self, ids):
        return self.fc(self.emb(ids).mean(1)).logsumexp(-1).mean()


def make():
    return M(), (torch.randint(0, 50, (4, 6)),)
