"""BERT-style sentence classifier in training: token embedding (padding_idx=0) + learned
positions + LayerNorm, a 2-layer nn.TransformerEncoder (post-LN, GELU, dropout 0.1,
batch_first) with src_key_padding_mask from the padded tokens, masked mean pooling over the
real tokens, tanh pooler, dropout and a 4-way cross-entropy. Batch 16 x seq 96 x d 256,
8 heads, FFN 1024; sequences padded to different lengths."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "bert_encoder"
TRAIN = True

VOCAB, SEQ, D, HEADS, FF, LAYERS, CLASSES = 5000, 96, 256, 8, 1024, 2, 4


class BertClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D, padding_idx=0)
        self.pos = nn.Embedding(SEQ, D)
        self.emb_norm = nn.LayerNorm(D)
        self.emb_drop = nn.Dropout(0.1)
        layer = nn.TransformerEncoderLayer(D, HEADS, FF, dropout=0.1, activation="gelu",
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, LAYERS)
        self.pooler = nn.Linear(D, D)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(D, CLASSES)
        self.register_buffer("pos_ids", torch.arange(SEQ).unsqueeze(0), persistent=False)

    def forward(self, tokens, labels):
        pad = tokens == 0
        x = self.tok(tokens) + self.pos(self.pos_ids[:, :tokens.size(1)])
        x = self.emb_drop(self.emb_norm(x))
        x = self.encoder(x, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).to(x.dtype)
        pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        pooled = torch.tanh(self.pooler(pooled))
        logits = self.head(self.drop(pooled))
        return F.cross_entropy(logits, labels)


def make():
    torch.manual_seed(0)
    B = 16
    lengths = torch.randint(24, SEQ + 1, (B,))
    lengths[0] = SEQ
    tokens = torch.randint(1, VOCAB, (B, SEQ))
    tokens[torch.arange(SEQ).unsqueeze(0) >= lengths.unsqueeze(1)] = 0
    return BertClassifier(), (tokens, torch.randint(0, CLASSES, (B,)))
