"""Anchor detection head in training with the losses users write over boolean-mask selections:
BCE-with-logits averaged over non-ignored anchors (`F.binary_cross_entropy_with_logits(cls[valid],
tgt[valid])`, mean), smooth-L1 averaged over positive anchors (`F.smooth_l1_loss(box[pos],
deltas[pos], beta=1/9)`), an objectness term `obj[pos].sigmoid().log().neg().mean()` (a chain of
pointwise ops on a selection, then mean), a centre-ness MSE summed over the box coordinates
before the mean (`((ctr[pos] - c_t[pos]) ** 2).sum(-1).mean()`), and a mean over a selection of
a [B, N, C] tensor by a [B, N] mask (`cls[pos].mean()`), a sum divided by the selection's numel(), an IoU-prediction BCE
on sigmoid probabilities over positives, a soft-margin objectness over non-ignored anchors, and
losses on column slices of selections (`box[pos][:, :2]`, `deltas[pos][..., :2]`, `obj[pos].unsqueeze(-1)`)
and on boxes decoded from them with torch.stack / torch.cat along the last dim."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True
B, N, C, D = 4, 24, 6, 16


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(D, 32)
        self.cls = nn.Linear(32, C)
        self.box = nn.Linear(32, 4)
        self.obj = nn.Linear(32, 1)

    def forward(self, feats, iou, cls_t, deltas):
        h = F.relu(self.trunk(feats))
        cls = self.cls(h)                    # B, N, C
        box = self.box(h)                    # B, N, 4
        obj = self.obj(h).squeeze(-1)        # B, N
        pos = iou >= 0.5
        valid = (iou < 0.4) | pos            # ignore band 0.4..0.5
        tgt = cls_t * pos.unsqueeze(-1).float()
        cls_loss = F.binary_cross_entropy_with_logits(cls[valid], tgt[valid])
        box_loss = F.smooth_l1_loss(box[pos], deltas[pos], beta=1.0 / 9)
        obj_loss = obj[pos].sigmoid().log().neg().mean()
        ctr_loss = ((box[pos] - deltas[pos]) ** 2).sum(-1).mean()
        mean_pos = cls[pos].mean()
        l1_per_coord = F.l1_loss(box[pos], deltas[pos], reduction="sum") / box[pos].numel()
        iou_pred = F.binary_cross_entropy(torch.sigmoid(obj[pos]), (iou[pos] - 0.5) * 2)
        margin = F.soft_margin_loss(obj[valid], pos[valid].float() * 2 - 1)
        xy = F.l1_loss(box[pos][:, :2], deltas[pos][..., :2]) + (obj[pos].unsqueeze(-1) * box[pos][:, 2:]).mean()
        decoded = torch.stack([box[pos][:, 0] + deltas[pos][:, 2].exp(), box[pos][:, 1]], -1)
        xy = xy + torch.cat([decoded, box[pos][:, 2:]], 1).pow(2).mean()
        return (cls_loss + box_loss + obj_loss + 0.1 * ctr_loss + 0.01 * mean_pos + l1_per_coord + iou_pred + margin + xy,
                cls_loss.detach())


def make():
    torch.manual_seed(0)
    feats = torch.randn(B, N, D)
    iou = torch.rand(B, N)
    cls_t = (torch.rand(B, N, C) > 0.7).float()
    deltas = torch.randn(B, N, 4)
    return Head(), (feats, iou, cls_t, deltas)
