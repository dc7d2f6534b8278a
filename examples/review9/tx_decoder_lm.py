"""Decoder-only Transformer LM, one training step, the way people write it with the built-in
layers: token nn.Embedding(padding_idx=PAD) * sqrt(d), a sinusoidal PositionalEncoding buffer
(the PyTorch word_language_model tutorial's), nn.TransformerEncoder of 2 nn.TransformerEncoderLayer
(batch_first=True, norm_first=True, GELU, dropout 0.1) driven with a causal mask built like
nn.Transformer.generate_square_subsequent_mask (torch.triu of a -inf filled matrix) plus a
src_key_padding_mask, a final LayerNorm, an output Linear whose weight is tied to the embedding,
shifted targets with PAD replaced by -100 and F.cross_entropy(ignore_index=-100).
B8 x T64, vocab 2000, d 128, 4 heads, FFN 512; logits 8 x 63 x 2000 (4 MB)."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r9_tx_decoder_lm"
TRAIN = True
B, T, V, D, HEADS, FF, LAYERS, PAD = 8, 64, 2000, 128, 4, 512, 2, 0


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=512):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(position * div_term)
        pe[0, :, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:, :x.size(1)]
        return self.dropout(x)


def causal_mask(sz):
    return torch.triu(torch.full((sz, sz), float('-inf')), diagonal=1)


class DecoderLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, D, padding_idx=PAD)
        self.pos = PositionalEncoding(D)
        layer = nn.TransformerEncoderLayer(D, HEADS, FF, dropout=0.1, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, V, bias=False)
        self.lm_head.weight = self.embed.weight   # weight tying

    def forward(self, tokens):
        inp, tgt = tokens[:, :-1], tokens[:, 1:]
        t = inp.size(1)
        mask = causal_mask(t)
        pad_mask = inp == PAD
        h = self.pos(self.embed(inp) * math.sqrt(D))
        h = self.encoder(h, mask=mask, src_key_padding_mask=pad_mask)
        logits = self.lm_head(self.ln_f(h))
        tgt = tgt.masked_fill(tgt == PAD, -100)
        loss = F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1), ignore_index=-100)
        return loss


def make():
    lengths = torch.randint(T // 2, T + 1, (B,))
    tokens = torch.randint(1, V, (B, T))
    tokens = tokens.masked_fill(torch.arange(T).unsqueeze(0) >= lengths.unsqueeze(1), PAD)
    return DecoderLM(), (tokens,)
