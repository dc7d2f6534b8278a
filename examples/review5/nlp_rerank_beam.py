"""Sequence-level training of a candidate re-ranker, the scoring half of beam search, in training:
a GRU-free decoder scores K=8 candidate continuations per source (embedding + learned positions,
one pre-norm transformer block with a causal mask, LayerNorm, head), log_softmax over the
vocabulary, token log-probs picked with gather(-1, tokens.unsqueeze(-1)), masked past each
candidate's length, prefix scores by cumsum along time and the final score by gather at length-1,
GNMT length penalty ((5 + len) / 6) ** 0.6, torch.topk of the beams (k=4) and gather of their
costs; losses: minimum-risk training (softmax over the candidates' scores x their cost from an
input tensor), a hand-written label-smoothed NLL on the reference candidate (index 0), and a
margin ranking hinge between the best-scoring and the reference beams. B16 x K8 x T48, d256, vocab
2000: log-probs 16 x 8 x 48 x 2000 (49 MB)."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "nlp_rerank_beam"
TRAIN = True

VOCAB, B, K, T, D, H, TOPB = 2000, 16, 8, 48, 256, 4, 4
EPS, ALPHA = 0.1, 0.6


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.zeros(1, T, D))
        self.ln1 = nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.ln2 = nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, tokens):
        n, t = tokens.shape
        x = self.tok(tokens) + self.pos[:, :t]
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q, k, v = (z.view(n, t, H, D // H).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(D // H))
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(n, t, D))
        x = x + self.mlp(self.ln2(x))
        return self.head(self.ln_f(x))


class Reranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.scorer = Scorer()

    def forward(self, cands, lengths, cost):
        b, k, t = cands.shape
        inp = cands[..., :-1].reshape(b * k, t - 1)
        tgt = cands[..., 1:]
        logp = F.log_softmax(self.scorer(inp), dim=-1).view(b, k, t - 1, VOCAB)
        tok_lp = logp.gather(-1, tgt.unsqueeze(-1)).squeeze(-1)            # b, k, t-1
        valid = torch.arange(t - 1, device=cands.device)[None, None, :] < (lengths - 1).unsqueeze(-1)
        tok_lp = tok_lp * valid
        prefix = tok_lp.cumsum(-1)
        last = (lengths - 2).clamp(min=0).unsqueeze(-1)
        seq_lp = prefix.gather(-1, last).squeeze(-1)                         # b, k
        lp = ((5.0 + (lengths - 1).float()) / 6.0) ** ALPHA
        scores = seq_lp / lp
        top_scores, top_idx = scores.topk(TOPB, dim=-1)
        top_cost = cost.gather(-1, top_idx)
        risk = (F.softmax(top_scores, dim=-1) * top_cost).sum(-1).mean()
        # label-smoothed NLL of the reference candidate (index 0)
        ref_lp, ref_valid = logp[:, 0], valid[:, 0].float()
        nll = -tok_lp[:, 0]
        smooth = -ref_lp.mean(-1) * ref_valid
        ls = ((1 - EPS) * nll + EPS * smooth).sum() / ref_valid.sum()
        margin = F.relu(1.0 - (scores[:, 0] - top_scores[:, 0])).mean()
        loss = risk + ls + 0.1 * margin
        return loss, top_idx


def make():
    cands = torch.randint(3, VOCAB, (B, K, T))
    lengths = torch.randint(T // 3, T + 1, (B, K))
    cands = cands.masked_fill(torch.arange(T)[None, None, :] >= lengths.unsqueeze(-1), 0)
    cost = torch.rand(B, K)
    cost[:, 0] = 0.0
    return Reranker(), (cands, lengths, cost)
