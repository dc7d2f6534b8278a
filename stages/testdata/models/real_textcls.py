"""Issue 15: a model of the kind users bring (exported by exporter/gcdbg_export.py with --train)."""
import torch
import torch.nn.functional as F
from torch import nn
NAME = "textcls"
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.conv = nn.Conv1d(16, 16, 3, padding=1)
        self.fc = nn.Linear(16, 4)
        self.loss = nn.CrossEntropyLoss(label_smoothing=0.05)
    def forward(self, idx, y):
        B, T = idx.shape
        e = self.emb(idx)                       # [B, T, 16]
        h = F.gelu(self.conv(e.transpose(1, 2)), approximate="tanh")
        h = F.adaptive_max_pool1d(h, 1).squeeze(-1) + h.mean(-1)
        logits = self.fc(F.normalize(h, dim=-1))
        return self.loss(logits, y), logits.softmax(-1).topk(2, dim=-1).values
def make():
    return M(), (torch.randint(0, 50, (4, 12)), torch.tensor([0, 3, 1, 2]))
