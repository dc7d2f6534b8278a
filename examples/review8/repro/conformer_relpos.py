"""ESPnet's Conformer self-attention with relative positional encoding, as written in
espnet/nets/pytorch_backend/transformer/{embedding.py, attention.py}: RelPositionalEncoding (pe
buffer of 2*max_len-1 sinusoids, sliced around its centre by x.size(1) in forward, x * sqrt(d),
dropout), RelPositionMultiHeadedAttention (linear_q/k/v/out, linear_pos without bias, pos_bias_u and
pos_bias_v parameters, matrix_ac + rel_shift(matrix_bd) where rel_shift is the zero-pad + cat +
view + slice + view_as trick, masked_fill of padded keys with -inf (min float), softmax, masked_fill
0, dropout), in a pre-LN residual block with a CE loss on the mean-pooled output.
B4 x T99 x d144, 4 heads: attention 4 x 4 x 99 x 197 (1.2 MB)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r8_conformer_relpos"
TRAIN = True
B, T, D, H, NC, MAXLEN = 4, 99, 144, 4, 10, 256


class RelPositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout_rate, max_len=MAXLEN):
        super().__init__()
        self.d_model = d_model
        self.xscale = math.sqrt(self.d_model)
        self.dropout = nn.Dropout(p=dropout_rate)
        pe_positive = torch.zeros(max_len, d_model)
        pe_negative = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / d_model))
        pe_positive[:, 0::2] = torch.sin(position * div_term)
        pe_positive[:, 1::2] = torch.cos(position * div_term)
        pe_negative[:, 0::2] = torch.sin(-1 * position * div_term)
        pe_negative[:, 1::2] = torch.cos(-1 * position * div_term)
        pe_positive = torch.flip(pe_positive, [0]).unsqueeze(0)
        pe_negative = pe_negative[1:].unsqueeze(0)
        self.register_buffer("pe", torch.cat([pe_positive, pe_negative], dim=1))

    def forward(self, x):
        x = x * self.xscale
        pos_emb = self.pe[:, self.pe.size(1) // 2 - x.size(1) + 1: self.pe.size(1) // 2 + x.size(1)]
        return self.dropout(x), self.dropout(pos_emb)


class RelPositionMultiHeadedAttention(nn.Module):
    def __init__(self, n_head, n_feat, dropout_rate):
        super().__init__()
        self.d_k = n_feat // n_head
        self.h = n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.dropout = nn.Dropout(p=dropout_rate)
        self.linear_pos = nn.Linear(n_feat, n_feat, bias=False)
        self.pos_bias_u = nn.Parameter(torch.Tensor(self.h, self.d_k))
        self.pos_bias_v = nn.Parameter(torch.Tensor(self.h, self.d_k))
        torch.nn.init.xavier_uniform_(self.pos_bias_u)
        torch.nn.init.xavier_uniform_(self.pos_bias_v)

    def rel_shift(self, x):
        # ESPnet: torch.zeros((*x.size()[:3], 1), ...) and x_padded.view(*x.size()[:2], ...)
        b, h, t1, t2 = x.size()
        zero_pad = torch.zeros((b, h, t1, 1), device=x.device, dtype=x.dtype)
        x_padded = torch.cat([zero_pad, x], dim=-1)
        x_padded = x_padded.view(b, h, t2 + 1, t1)
        x = x_padded[:, :, 1:].view_as(x)[:, :, :, : x.size(-1) // 2 + 1]
        return x

    def forward(self, query, key, value, pos_emb, mask):
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k)
        k = self.linear_k(key).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(value).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        n_batch_pos = pos_emb.size(0)
        p = self.linear_pos(pos_emb).view(n_batch_pos, -1, self.h, self.d_k).transpose(1, 2)
        q_with_bias_u = (q + self.pos_bias_u).transpose(1, 2)
        q_with_bias_v = (q + self.pos_bias_v).transpose(1, 2)
        matrix_ac = torch.matmul(q_with_bias_u, k.transpose(-2, -1))
        matrix_bd = torch.matmul(q_with_bias_v, p.transpose(-2, -1))
        matrix_bd = self.rel_shift(matrix_bd)
        scores = (matrix_ac + matrix_bd) / math.sqrt(self.d_k)
        mask = mask.unsqueeze(1).eq(0)  # (batch, 1, *, time2)
        # ESPnet: torch.finfo(scores.dtype).min, refused by the exporter (finfo of a traced dtype)
        min_value = torch.finfo(torch.float32).min
        scores = scores.masked_fill(mask, min_value)
        attn = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)
        p_attn = self.dropout(attn)
        x = torch.matmul(p_attn, v)
        x = x.transpose(1, 2).contiguous().view(n_batch, -1, self.h * self.d_k)
        return self.linear_out(x)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(80, D)
        self.pos = RelPositionalEncoding(D, 0.1)
        self.norm = nn.LayerNorm(D)
        self.attn = RelPositionMultiHeadedAttention(H, D, 0.1)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(D, NC)

    def forward(self, feats, lens, y):
        x, pos_emb = self.pos(self.embed(feats))
        mask = (torch.arange(T)[None, :] < lens[:, None]).unsqueeze(1)  # (B, 1, T), 1 = valid
        xn = self.norm(x)
        x = x + self.drop(self.attn(xn, xn, xn, pos_emb, mask))
        valid = mask.squeeze(1).unsqueeze(-1).float()
        pooled = (x * valid).sum(1) / valid.sum(1)
        return F.cross_entropy(self.head(pooled), y)


def make():
    return Block().train(), (torch.randn(B, T, 80), torch.tensor([99, 90, 75, 60]), torch.randint(0, NC, (B,)))
