# A GPT-style language-model step in training at toy size (issue 13): a packed q/k/v Linear
# split into heads (its gradient is the sum of three slice_scatters of zeros: one cat,
# stages/joint_slices.go), a tied LM head and next-token cross-entropy over logits[:, :-1]
# (the logits' gradient is a slice_scatter of zeros, which its producer writes directly:
# render/slice_scatter_fold.go). Targets include ignore_index (-100)
# rows. Sizes are not multiples of a vector width (vocabulary 67).
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/lm_slice_ce.py \
#         -o runner/testdata/lm_slice_ce.json --seed 0
import math

import torch
import torch.nn.functional as F
from torch import nn

NAME = "lm_slice_ce"
TRAIN = True

V, T, D, H = 67, 9, 12, 3


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(V, D)
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)
        self.ln = nn.LayerNorm(D)
        self.head = nn.Linear(D, V, bias=False)
        self.head.weight = self.wte.weight

    def forward(self, idx, tgt):
        B, T_ = idx.shape
        x = self.wte(idx)
        q, k, v = self.c_attn(x).split(D, dim=2)
        q = q.view(B, T_, H, D // H).transpose(1, 2)
        k = k.view(B, T_, H, D // H).transpose(1, 2)
        v = v.view(B, T_, H, D // H).transpose(1, 2)
        att = F.softmax((q @ k.transpose(-2, -1)) / math.sqrt(D // H), dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T_, D)
        x = self.ln(x + self.c_proj(y))
        logits = self.head(x)
        return F.cross_entropy(logits[:, :-1].reshape(-1, V), tgt[:, 1:].reshape(-1))


def make():
    torch.manual_seed(0)
    idx = torch.randint(0, V, (2, T))
    tgt = idx.clone()
    tgt[0, 3] = -100
    tgt[1, 5] = -100
    return M(), (idx, tgt)
