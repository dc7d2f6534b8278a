"""Decoder-only LM step with ALiBi attention and a top-2 mixture-of-experts FFN, in training:
token embedding (no positions), 2 blocks of (LayerNorm -> causal self-attention with torch.einsum
("bhqd,bhkd->bhqk") scores + the ALiBi bias slopes[h] * (j - i) from a registered slopes buffer and
torch.arange, a tril causal mask buffer applied with masked_fill(-inf), softmax, dropout, einsum
back -> residual, LayerNorm -> MoE: router Linear, softmax, torch.topk(2), renormalised top-2 gates,
F.one_hot dispatch mask, each of 4 GELU experts run on every token and combined by its gate (dense
dispatch), the Switch load-balancing loss E * sum(f_e * P_e) and the router z-loss
logsumexp(logits)^2) -> residual), final LayerNorm, untied head, next-token cross_entropy with
label_smoothing=0.1 plus 0.01 x the auxiliary losses. B8 x T256 x d256, 8 heads: scores 16.8 MB,
expert hidden 8 x 256 x 1024 per expert (8.4 MB, x 4), vocab 3000 logits 24.6 MB."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "nlp_alibi_moe"
TRAIN = True

VOCAB, B, T, D, H, E, FF, LAYERS = 3000, 8, 256, 256, 8, 4, 1024, 2


def alibi_slopes(n):
    start = 2 ** (-(2 ** -(math.log2(n) - 3)))
    return [start * start ** i for i in range(n)]


class AlibiAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.drop = nn.Dropout(0.1)
        self.register_buffer("slopes", torch.tensor(alibi_slopes(H)).view(1, H, 1, 1))
        self.register_buffer("causal", torch.tril(torch.ones(T, T, dtype=torch.bool)))

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (z.view(b, t, H, D // H).transpose(1, 2) for z in (q, k, v))
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(D // H)
        pos = torch.arange(t, device=x.device)
        rel = (pos[None, :] - pos[:, None]).float()               # j - i, <= 0 below the diagonal
        scores = scores + self.slopes * rel
        scores = scores.masked_fill(~self.causal[:t, :t], float("-inf"))
        attn = self.drop(scores.softmax(dim=-1))
        out = torch.einsum("bhqk,bhkd->bhqd", attn, v)
        return self.proj(out.transpose(1, 2).reshape(b, t, D))


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = nn.Linear(D, E, bias=False)
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(D, FF), nn.GELU(), nn.Linear(FF, D)) for _ in range(E)])

    def forward(self, x):
        b, t, d = x.shape
        flat = x.reshape(-1, d)
        logits = self.router(flat)
        probs = logits.softmax(dim=-1)
        topv, topi = probs.topk(2, dim=-1)
        topv = topv / topv.sum(dim=-1, keepdim=True)
        dispatch = F.one_hot(topi, E).float()                     # N, 2, E
        gates = (dispatch * topv.unsqueeze(-1)).sum(1)            # N, E
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            out = out + gates[:, e:e + 1] * expert(flat)
        frac = dispatch[:, 0].mean(0)                              # top-1 assignment fraction
        balance = E * (frac * probs.mean(0)).sum()
        zloss = torch.logsumexp(logits, dim=-1).pow(2).mean()
        return out.view(b, t, d), balance + 1e-3 * zloss


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.attn = AlibiAttention()
        self.ln2 = nn.LayerNorm(D)
        self.moe = MoE()

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        m, aux = self.moe(self.ln2(x))
        return x + m, aux


class AlibiMoELM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids):
        x = self.tok(ids)
        aux_total = 0.0
        for blk in self.blocks:
            x, aux = blk(x)
            aux_total = aux_total + aux
        logits = self.head(self.ln_f(x))
        lm = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1), label_smoothing=0.1)
        return lm + 0.01 * aux_total, aux_total


def make():
    return AlibiMoELM(), (torch.randint(0, VOCAB, (B, T)),)
