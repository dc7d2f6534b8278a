"""nn.Embedding(max_norm=1.0) renormalises the looked-up rows of its weight in place during forward."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6, max_norm=1.0)
        self.fc = nn.Linear(6, 1)
    def forward(self, idx):
        return self.fc(self.emb(idx)).sum()
def make():
    return M(), (torch.randint(0, 20, (4, 5)),)
