import torch
from torch import nn
import torch.nn.functional as F

NAME = "moe_router"
TRAIN = True


class Expert(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.w1 = nn.Linear(d, h)
        self.w2 = nn.Linear(h, d)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)))


class TopKMoE(nn.Module):
    """Dense-dispatch top-2 MoE (Mixtral-ish) with load-balance and z losses."""

    def __init__(self, d=64, h=128, n_experts=4, k=2):
        super().__init__()
        self.gate = nn.Linear(d, n_experts, bias=False)
        self.experts = nn.ModuleList([Expert(d, h) for _ in range(n_experts)])
        self.n_experts = n_experts
        self.k = k

    def forward(self, x):
        B, T, D = x.shape
        flat = x.reshape(-1, D)
        logits = self.gate(flat)  # N, E
        z_loss = torch.logsumexp(logits, dim=-1).pow(2).mean()
        probs = F.softmax(logits, dim=-1)
        topv, topi = torch.topk(probs, self.k, dim=-1)
        topv = topv / topv.sum(dim=-1, keepdim=True)
        # combine weights as dense N x E via scatter
        combine = torch.zeros_like(probs).scatter(1, topi, topv)
        # expert outputs: E x N x D
        outs = torch.stack([e(flat) for e in self.experts], dim=1)  # N, E, D
        y = torch.einsum("ne,ned->nd", combine, outs)
        # load balancing (Switch style)
        mask = F.one_hot(topi[:, 0], self.n_experts).float()
        frac = mask.mean(0)
        pmean = probs.mean(0)
        aux = self.n_experts * (frac * pmean).sum()
        return y.reshape(B, T, D), aux, z_loss


class Model(nn.Module):
    def __init__(self, vocab=256, d=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.norm1 = nn.GroupNorm(8, d)
        self.moe = TopKMoE(d)
        self.proj = nn.Linear(d, d)
        self.out = nn.Linear(d, vocab)

    def forward(self, ids, targets):
        h = self.emb(ids)  # B T D
        # causal running mean via cumsum
        csum = torch.cumsum(h, dim=1)
        count = torch.arange(1, h.shape[1] + 1, device=h.device, dtype=h.dtype).view(1, -1, 1)
        h = h + csum / count
        h = self.norm1(h.transpose(1, 2)).transpose(1, 2)
        m, aux, z = self.moe(h)
        h = h + m
        h = F.hardswish(self.proj(h)) + F.mish(h)
        h = F.normalize(h, dim=-1) * 8.0
        h = torch.clamp(h, -3.0, 3.0)
        logits = self.out(h)
        # gather-based NLL with ignore via where
        logp = F.log_softmax(logits, dim=-1)
        tgt = targets.clamp(min=0)
        nll = -logp.gather(-1, tgt.unsqueeze(-1)).squeeze(-1)
        valid = targets >= 0
        nll = torch.where(valid, nll, torch.zeros_like(nll))
        loss = nll.sum() / valid.sum().clamp(min=1)
        # sort-based metric: rank of the target among logits (no grad)
        sorted_logits, _ = torch.sort(logits, dim=-1, descending=True)
        top5_thresh = sorted_logits[..., 4]
        tgt_logit = logits.gather(-1, tgt.unsqueeze(-1)).squeeze(-1)
        top5 = ((tgt_logit >= top5_thresh) & valid).float().sum() / valid.sum()
        total = loss + 0.01 * aux + 0.001 * z
        return total, top5.detach()


def make():
    model = Model()
    ids = torch.randint(0, 256, (8, 32))
    targets = torch.randint(0, 256, (8, 32))
    targets[:, -5:] = -100
    return model, (ids, targets)
