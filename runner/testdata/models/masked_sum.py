"""Masked sums by boolean indexing as detection losses write them: focal[valid].sum() with a
[B, N] mask over a [B, N, C] loss, a full-shape mask with torch.sum(x[m]), a NaN at an
unselected position (dropped by the selection), smooth_l1_loss(a[m], b[m], reduction="sum") as
box regression losses write it, in training."""
import torch
import torch.nn as nn
import torch.nn.functional as F
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 5)
    def forward(self, x, t, valid, pos):
        p = self.fc(x)                                     # B, N, 5
        loss = F.binary_cross_entropy_with_logits(p, t, reduction="none")
        bad = torch.where(valid.unsqueeze(-1), loss, torch.full_like(loss, float("nan")))
        cls = bad[valid].sum() / valid.sum().clamp(min=1)
        reg = torch.sum((p * p)[pos])
        box = F.smooth_l1_loss(p[valid], t[valid], beta=0.5, reduction="sum")
        return cls + 0.1 * reg + 3 * box, cls.detach()
def make():
    torch.manual_seed(0)
    valid = torch.rand(4, 16) > 0.3
    pos = torch.rand(4, 16, 5) > 0.8
    return M(), (torch.randn(4, 16, 8), torch.rand(4, 16, 5), valid, pos)
