"""Issue 15, second round: a Transformer text classifier in training, as users write it:
Embedding(padding_idx), nn.TransformerEncoder of two nn.TransformerEncoderLayer (dropout 0.1,
batch_first, gelu, norm_first in the second stack), a bool key-padding mask and a float causal
mask, mean pooling, cross-entropy. The exporter traces the layers through, so every dropout
draw (attention weights included) is a recorded node."""
import torch
import torch.nn.functional as F
from torch import nn
NAME = "real2_tenc"
TRAIN = True
class M(nn.Module):
    def __init__(self, V=30, D=16, C=3):
        super().__init__()
        self.emb = nn.Embedding(V, D, padding_idx=0)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, 2, 32, dropout=0.1, batch_first=True, activation="gelu"), 2)
        self.pre = nn.TransformerEncoderLayer(D, 4, 24, dropout=0.1, norm_first=True)
        self.head = nn.Linear(D, C)
    def forward(self, idx, y, causal):
        pad = idx == 0
        h = self.enc(self.emb(idx), src_key_padding_mask=pad)
        h = self.pre(h.transpose(0, 1), src_mask=causal).transpose(0, 1)
        keep = (~pad).unsqueeze(-1).float()
        logits = self.head((h * keep).sum(1) / keep.sum(1))
        return F.cross_entropy(logits, y)
def make():
    idx = torch.randint(1, 30, (3, 5))
    idx[0, 3:] = 0
    idx[2, 4] = 0
    causal = torch.triu(torch.full((5, 5), float("-inf")), diagonal=1)
    return M(), (idx, torch.tensor([0, 2, 1]), causal)
