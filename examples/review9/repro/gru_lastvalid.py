"""GRU classifier, last valid step instead of packing: nn.GRU(batch_first=True, num_layers=1)
with an explicit h0 input, out.gather(1, (lengths - 1).view(-1, 1, 1).expand(-1, 1, H)).squeeze(1),
LayerNorm, Linear, cross_entropy with class weights."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r9_gru_lastvalid"
TRAIN = True
B, T, V, E, H, NC = 32, 64, 3000, 64, 96, 5


class GRUCls(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E, padding_idx=0)
        self.gru = nn.GRU(E, H, batch_first=True)
        self.norm = nn.LayerNorm(H)
        self.fc = nn.Linear(H, NC)
        self.register_buffer("class_w", torch.tensor([1.0, 2.0, 0.5, 1.0, 3.0]))

    def forward(self, tokens, lengths, h0, y):
        out, _ = self.gru(self.emb(tokens), h0)
        last = out.gather(1, (lengths - 1).view(-1, 1, 1).expand(-1, 1, out.size(2))).squeeze(1)
        return F.cross_entropy(self.fc(self.norm(last)), y, weight=self.class_w)


def make():
    lengths = torch.randint(5, T + 1, (B,))
    tokens = torch.randint(1, V, (B, T)).masked_fill(torch.arange(T)[None] >= lengths[:, None], 0)
    return GRUCls(), (tokens, lengths, torch.zeros(1, B, H), torch.randint(0, NC, (B,)))
