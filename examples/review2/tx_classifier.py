"""Text classifier in training, written the way torch users write one with the stock modules:
nn.Embedding(padding_idx=0) + learned positions, 2 x nn.TransformerEncoderLayer(batch_first=True,
norm_first=True, activation="gelu", dropout=0.1) driven with a src_key_padding_mask built from
per-sequence lengths (torch.arange(T)[None] >= lengths[:, None]), masked mean pooling
(masked_fill + sum / lengths), Dropout, Linear head, cross_entropy(label_smoothing=0.1).
B32 x T128 x d256, 8 heads, FFN 1024, vocab 8000: scores 16.8 MB per layer."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "tx_classifier"
TRAIN = True

VOCAB, SEQ, D, HEADS, FFN, CLASSES, B = 8000, 128, 256, 8, 1024, 20, 32


class TxClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D, padding_idx=0)
        self.pos = nn.Parameter(torch.randn(1, SEQ, D) * 0.02)
        layer = nn.TransformerEncoderLayer(D, HEADS, FFN, dropout=0.1, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(D)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(D, CLASSES)

    def forward(self, ids, lengths, labels):
        pad = torch.arange(ids.shape[1], device=ids.device)[None, :] >= lengths[:, None]
        x = self.emb(ids) + self.pos
        x = self.enc(x, src_key_padding_mask=pad)
        x = self.norm(x)
        x = x.masked_fill(pad[..., None], 0.0)
        pooled = x.sum(1) / lengths[:, None].to(x.dtype)
        logits = self.head(self.drop(pooled))
        return F.cross_entropy(logits, labels, label_smoothing=0.1)


def make():
    torch.manual_seed(0)
    lengths = torch.randint(16, SEQ + 1, (B,))
    ids = torch.randint(1, VOCAB, (B, SEQ))
    ids = ids.masked_fill(torch.arange(SEQ)[None, :] >= lengths[:, None], 0)
    labels = torch.randint(0, CLASSES, (B,))
    return TxClassifier(), (ids, lengths, labels)
