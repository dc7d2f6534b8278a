"""BERT-style masked-LM pretraining step built from PyTorch's own layers, in training: token +
learned position embeddings, LayerNorm, Dropout, nn.TransformerEncoder of 2 x
nn.TransformerEncoderLayer(batch_first=True, activation="gelu") -- the first post-norm
(norm_first=False), the second pre-norm (norm_first=True), each with nn.MultiheadAttention inside
and dropout 0.1 -- with src_key_padding_mask (True = padding); then the MLM head (Linear -> GELU ->
LayerNorm -> decoder Linear whose weight is tied to the token embedding, plus its own bias) and
cross_entropy over the vocabulary with labels -100 on every position that is not masked.
B16 x T128 x d256, 4 heads, FFN 1024 (8.4 MB), vocab 6000: logits 49 MB."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "nlp_mlm_tied"
TRAIN = True

VOCAB, B, T, D, H, FF = 6000, 16, 128, 256, 4, 1024
PAD, MASK = 0, 1


class MLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = nn.Embedding(T, D)
        self.ln = nn.LayerNorm(D)
        self.drop = nn.Dropout(0.1)
        post = nn.TransformerEncoderLayer(D, H, FF, dropout=0.1, activation="gelu", batch_first=True, norm_first=False)
        pre = nn.TransformerEncoderLayer(D, H, FF, dropout=0.1, activation="gelu", batch_first=True, norm_first=True)
        self.layers = nn.ModuleList([post, pre])
        self.head_dense = nn.Linear(D, D)
        self.head_ln = nn.LayerNorm(D)
        self.decoder = nn.Linear(D, VOCAB)
        self.decoder.weight = self.tok.weight

    def forward(self, ids, labels):
        pad = ids == PAD
        pos = torch.arange(ids.size(1), device=ids.device).unsqueeze(0)
        h = self.drop(self.ln(self.tok(ids) + self.pos(pos)))
        for layer in self.layers:
            h = layer(h, src_key_padding_mask=pad)
        h = self.head_ln(F.gelu(self.head_dense(h)))
        logits = self.decoder(h)
        loss = F.cross_entropy(logits.view(-1, VOCAB), labels.view(-1))
        return loss


def make():
    lengths = torch.randint(T // 2, T + 1, (B,))
    ids = torch.randint(2, VOCAB, (B, T))
    ids = ids.masked_fill(torch.arange(T)[None, :] >= lengths[:, None], PAD)
    chosen = (torch.rand(B, T) < 0.15) & (ids != PAD)
    labels = torch.where(chosen, ids, torch.full_like(ids, -100))
    ids = ids.masked_fill(chosen, MASK)
    return MLM(), (ids, labels)
