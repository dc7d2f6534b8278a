"""A text classifier on one nn.TransformerEncoderLayer in training, as a user writes it:
token nn.Embedding + a learned positional nn.Parameter, nn.TransformerEncoderLayer(d_model=256,
nhead=8, dim_feedforward=1024, dropout=0.1, activation="gelu", batch_first=True) with a
src_key_padding_mask, masked mean pooling, Dropout(0.1), Linear to 4 classes, cross_entropy.
B16 x 128 tokens: FFN hidden 16 x 128 x 1024 (8.4 MB), attention 16 x 8 x 128 x 128 (8.4 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r7_tx_enc_cls"
TRAIN = True
B, L, V, D, NC = 16, 128, 5000, 256, 4


class TxCls(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D, padding_idx=0)
        self.pos = nn.Parameter(torch.randn(1, L, D) * 0.02)
        self.enc = nn.TransformerEncoderLayer(D, 8, 1024, dropout=0.1, activation="gelu", batch_first=True)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(D, NC)

    def forward(self, tok, y):
        pad = tok.eq(0)
        h = self.emb(tok) + self.pos
        h = self.enc(h, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        h = (h * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return F.cross_entropy(self.head(self.drop(h)), y)


def make():
    tok = torch.randint(1, V, (B, L))
    lens = torch.randint(L // 2, L + 1, (B,))
    tok[torch.arange(L)[None, :] >= lens[:, None]] = 0
    return TxCls().train(), (tok, torch.randint(0, NC, (B,)))
