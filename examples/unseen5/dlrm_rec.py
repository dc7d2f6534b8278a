"""DLRM-style click-through-rate model in training: 13 dense features through a bottom MLP
(ReLU), 4 single-valued categorical features through nn.Embedding tables and 2 multi-hot
features through nn.EmbeddingBag(mode="sum") with flat indices + offsets (bags of 1-20 ids, one
empty bag), the 7 feature vectors stacked, pairwise dot-product interactions by torch.bmm, the
strictly lower triangle gathered with a tril_indices buffer (Z[:, li, lj]), concatenated with the
dense vector, a top MLP to one logit, and BCEWithLogitsLoss with pos_weight against 0/1 clicks.
Batch 4096, embedding dim 64, tables of 20k-50k rows (the embedding gradients are dense: 12.8 MB
for the largest table), interaction tensor 4096 x 7 x 7."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "dlrm_rec"
TRAIN = True

B, DENSE, DIM = 4096, 13, 64
CAT_SIZES = [50000, 20000, 30000, 1000]
BAG_SIZES = [40000, 20000]


def mlp(sizes, last_act=True):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2 or last_act:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class DLRM(nn.Module):
    def __init__(self):
        super().__init__()
        self.bottom = mlp([DENSE, 256, 128, DIM])
        self.embs = nn.ModuleList([nn.Embedding(n, DIM) for n in CAT_SIZES])
        self.bags = nn.ModuleList([nn.EmbeddingBag(n, DIM, mode="sum") for n in BAG_SIZES])
        F_ = 1 + len(CAT_SIZES) + len(BAG_SIZES)
        li, lj = torch.tril_indices(F_, F_, offset=-1)
        self.register_buffer("li", li, persistent=False)
        self.register_buffer("lj", lj, persistent=False)
        self.top = mlp([DIM + F_ * (F_ - 1) // 2, 256, 128, 1], last_act=False)
        self.loss = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0]))

    def forward(self, dense, cats, bag0_idx, bag0_off, bag1_idx, bag1_off, clicks):
        x = self.bottom(torch.log1p(dense))
        feats = [x]
        for i, emb in enumerate(self.embs):
            feats.append(emb(cats[:, i]))
        feats.append(self.bags[0](bag0_idx, bag0_off))
        feats.append(self.bags[1](bag1_idx, bag1_off))
        T = torch.stack(feats, dim=1)                      # B, 7, DIM
        Z = torch.bmm(T, T.transpose(1, 2))                # B, 7, 7
        Zflat = Z[:, self.li, self.lj]                     # B, 21
        logit = self.top(torch.cat([x, Zflat], dim=1)).squeeze(1)
        return self.loss(logit, clicks)


def bag(n, rows):
    lens = torch.randint(1, 21, (B,))
    lens[7] = 0
    offsets = torch.zeros(B, dtype=torch.long)
    offsets[1:] = torch.cumsum(lens, 0)[:-1]
    idx = torch.randint(0, rows, (int(lens.sum()),))
    return idx, offsets


def make():
    dense = torch.rand(B, DENSE) * 100
    cats = torch.stack([torch.randint(0, n, (B,)) for n in CAT_SIZES], dim=1)
    b0i, b0o = bag(B, BAG_SIZES[0])
    b1i, b1o = bag(B, BAG_SIZES[1])
    clicks = (torch.rand(B) < 0.25).float()
    return DLRM(), (dense, cats, b0i, b0o, b1i, b1o, clicks)
