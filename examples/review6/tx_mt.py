"""Transformer translation step in training, the way a user writes it after the PyTorch
tutorial: separate source/target nn.Embedding(padding_idx=0) scaled by sqrt(d_model), a sinusoidal
positional-encoding buffer sliced to the length, nn.TransformerEncoder (2 pre-LN layers, GELU,
final LayerNorm) for the memory, nn.TransformerDecoder (2 pre-LN layers, final LayerNorm) with
teacher forcing: tgt_in = tgt[:, :-1], the causal tgt_mask from
nn.Transformer.generate_square_subsequent_mask(T) made inside forward, src/tgt/memory key-padding
masks from the PAD id, a Linear generator and cross_entropy(ignore_index=PAD, label_smoothing=0.1).
B16, source 48 tokens, target 41 (40 after the shift), vocab 4000 / 3000, d_model 256, 8 heads,
FFN 1024: logits 16 x 40 x 3000 (7.7 MB), FFN hidden 16 x 48 x 1024 (3.1 MB)."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "tx_mt"
TRAIN = True

PAD = 0
B, S, T = 16, 48, 41
SRC_V, TGT_V, D, H, FF = 4000, 3000, 256, 8, 1024


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=512, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pe = torch.zeros(max_len, d_model)
        pos = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.dropout(x + self.pe[:, :x.size(1)])


class Seq2SeqTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(SRC_V, D, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(TGT_V, D, padding_idx=PAD)
        self.pos = PositionalEncoding(D)
        enc_layer = nn.TransformerEncoderLayer(D, H, FF, dropout=0.1, activation="gelu",
                                               batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, num_layers=2, norm=nn.LayerNorm(D))
        dec_layer = nn.TransformerDecoderLayer(D, H, FF, dropout=0.1, activation="gelu",
                                               batch_first=True, norm_first=True)
        self.decoder = nn.TransformerDecoder(dec_layer, num_layers=2, norm=nn.LayerNorm(D))
        self.generator = nn.Linear(D, TGT_V)

    def forward(self, src, tgt):
        tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]
        src_pad = src == PAD
        tgt_pad = tgt_in == PAD
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt_in.size(1))
        memory = self.encoder(self.pos(self.src_emb(src) * math.sqrt(D)),
                              src_key_padding_mask=src_pad)
        out = self.decoder(self.pos(self.tgt_emb(tgt_in) * math.sqrt(D)), memory,
                           tgt_mask=tgt_mask, tgt_key_padding_mask=tgt_pad,
                           memory_key_padding_mask=src_pad)
        logits = self.generator(out)
        loss = F.cross_entropy(logits.reshape(-1, TGT_V), tgt_out.reshape(-1),
                               ignore_index=PAD, label_smoothing=0.1)
        return loss, logits


def _batch(n, length, vocab, min_len):
    toks = torch.randint(3, vocab, (n, length))
    lens = torch.randint(min_len, length + 1, (n,))
    lens[0] = length
    pos = torch.arange(length).unsqueeze(0)
    toks[:, 0] = 1                                   # BOS
    toks.scatter_(1, (lens - 1).unsqueeze(1), 2)     # EOS
    return toks.masked_fill(pos >= lens.unsqueeze(1), PAD)


def make():
    return Seq2SeqTransformer(), (_batch(B, S, SRC_V, 20), _batch(B, T, TGT_V, 15))
