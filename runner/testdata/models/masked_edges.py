"""Boolean-mask selections at their edges, in training: a mask with no true element (the mean of an
empty selection is NaN in PyTorch, for x[m].mean(), BCE-with-logits, cross_entropy and
smooth-L1 alike, with zero gradients), a mask with every element true, a log of the selection scaled
by a learned temperature (x[m].log() is -inf at x's zeros outside the selection: no NaN may reach
the temperature's gradient), a NaN row outside the selection, and reductions over the selection's dims:
x[m].mean(0), x[m].sum(0), x[m].sum(-1).mean()."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True
B, N, C = 3, 10, 5


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, C)
        self.temp = nn.Parameter(torch.tensor([0.7, 1.3, 0.9, 1.1, 1.0]))

    def forward(self, x, score, labels):
        p = self.fc(x)                                   # B, N, C
        none = score > 100.0                             # all false
        every = score > -100.0                           # all true
        some = score > 0.3
        empty = (p[none].mean()
                 + F.binary_cross_entropy_with_logits(p[none], torch.sigmoid(p[none].detach()))
                 + F.cross_entropy(p[none], labels[none])
                 + F.smooth_l1_loss(p[none], p[none].detach() * 0.5))
        full = F.cross_entropy(p[every], labels[every]) + p[every].mean()
        q = torch.where(score.unsqueeze(-1) == 0.0, torch.full_like(p, float("nan")), torch.relu(p) + 0.1)
        temp = (q[some].log() * self.temp).exp().mean()
        dims = p[some].mean(0).sum() + p[some].sum(0).mean() + (p[some] ** 2).sum(-1).mean()
        return full + temp + dims, empty


def make():
    torch.manual_seed(0)
    x = torch.randn(B, N, 8)
    score = torch.rand(B, N)
    score[0, 1] = 0.0                                    # q's NaN row, outside `some`
    labels = torch.randint(0, C, (B, N))
    return M(), (x, score, labels)
