"""Item assignment under torch.fx (torch 1.13's Proxy has none): label assignment as detection
losses write it, `labels[iou < 0.4] = 0` / `labels[iou >= 0.5] = 1` on a full_like, a slice
write `h[:, 0] = ...` on an intermediate, a masked write of rows and a column write of a
torch.where, in training."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x, iou):
        best, _ = iou.max(dim=1)
        labels = torch.full_like(best, -1.0)
        labels[best < 0.4] = 0
        labels[best >= 0.5] = 1
        h = self.fc(x)
        h = h * 1.0
        h[:, 0] = h[:, 1] * 2
        h[labels < 0] = 0.0
        h[:, 3] = torch.where(labels > 0, h[:, 3], -h[:, 3])
        valid = labels >= 0
        loss = F.binary_cross_entropy_with_logits(h[:, 2], labels.clamp(min=0), weight=valid.float())
        return loss + h.pow(2).mean(), labels


def make():
    torch.manual_seed(0)
    return M(), (torch.randn(32, 6), torch.rand(32, 5))
