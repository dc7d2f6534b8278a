"""CenterNet-style detector with a segmentation branch, in training, as a user writes it from the
paper's code: a Conv-BatchNorm-ReLU backbone to stride 16, a small FPN going back up (one
nn.ConvTranspose2d(4, 2, 1) and one F.interpolate(scale_factor=2, mode="bilinear") each added
to a 1x1 lateral), heads at stride 4: class heatmap (bias -2.19), box size and sub-pixel offset;
CenterNet's penalty-reduced focal loss on clamp(sigmoid(hm), 1e-4, 1 - 1e-4) against Gaussian
targets, `_transpose_and_gather_feat` (permute/contiguous/view, gather by the centre indices)
and a masked L1 for size and offset; a mask head upsampled x4 to the input with
F.interpolate(mode="bilinear", align_corners=False) and BCE-with-logits + soft Dice.
B16 x 3 x 128^2, 4 classes, 8 objects max: first map 16 x 32 x 64^2 (8.4 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "centernet_det"
TRAIN = True

B, IMG, NC, MAXOBJ = 16, 128, 4, 8
OUT = IMG // 4


def cbr(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CenterNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = cbr(3, 32, 2)                                   # /2
        self.c2 = nn.Sequential(cbr(32, 64, 2), cbr(64, 64))         # /4
        self.c3 = nn.Sequential(cbr(64, 128, 2), cbr(128, 128))      # /8
        self.c4 = nn.Sequential(cbr(128, 256, 2), cbr(256, 256))     # /16
        self.up4 = nn.Sequential(nn.ConvTranspose2d(256, 128, 4, 2, 1, bias=False),
                                 nn.BatchNorm2d(128), nn.ReLU(inplace=True))
        self.lat3 = nn.Conv2d(128, 128, 1)
        self.lat2 = nn.Conv2d(64, 128, 1)
        self.smooth = cbr(128, 64)

        def head(cout, bias=0.0):
            h = nn.Sequential(nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(inplace=True),
                              nn.Conv2d(64, cout, 1))
            nn.init.constant_(h[-1].bias, bias)
            return h
        self.hm = head(NC, -2.19)
        self.wh = head(2)
        self.reg = head(2)
        self.seg = head(1)

    @staticmethod
    def _gather_feat(feat, ind):
        b, c = feat.size(0), feat.size(1)
        feat = feat.permute(0, 2, 3, 1).contiguous().view(b, -1, c)
        ind = ind.unsqueeze(2).expand(ind.size(0), ind.size(1), c)
        return feat.gather(1, ind)

    @staticmethod
    def _focal(pred, gt):
        pos = gt.eq(1).float()
        neg = gt.lt(1).float()
        neg_w = torch.pow(1 - gt, 4)
        pos_loss = (torch.log(pred) * torch.pow(1 - pred, 2) * pos).sum()
        neg_loss = (torch.log(1 - pred) * torch.pow(pred, 2) * neg_w * neg).sum()
        num_pos = pos.sum()
        return -(pos_loss + neg_loss) / num_pos.clamp(min=1)

    def forward(self, img, hm_gt, ind, reg_mask, wh_gt, reg_gt, seg_gt):
        x2 = self.c2(self.stem(img))
        x3 = self.c3(x2)
        x4 = self.c4(x3)
        p3 = self.up4(x4) + self.lat3(x3)
        p2 = F.interpolate(p3, scale_factor=2, mode="bilinear", align_corners=False) + self.lat2(x2)
        f = self.smooth(p2)

        hm = torch.clamp(torch.sigmoid(self.hm(f)), min=1e-4, max=1 - 1e-4)
        hm_loss = self._focal(hm, hm_gt)
        mask = reg_mask.unsqueeze(2).float()
        wh = self._gather_feat(self.wh(f), ind)
        wh_loss = F.l1_loss(wh * mask, wh_gt * mask, reduction="sum") / (mask.sum() + 1e-4)
        off = self._gather_feat(self.reg(f), ind)
        off_loss = F.l1_loss(off * mask, reg_gt * mask, reduction="sum") / (mask.sum() + 1e-4)

        seg_logits = F.interpolate(self.seg(f), size=img.shape[-2:], mode="bilinear",
                                   align_corners=False)
        bce = F.binary_cross_entropy_with_logits(seg_logits, seg_gt)
        prob = torch.sigmoid(seg_logits)
        inter = (prob * seg_gt).sum(dim=(2, 3))
        dice = 1 - (2 * inter + 1) / (prob.sum(dim=(2, 3)) + seg_gt.sum(dim=(2, 3)) + 1)
        seg_loss = bce + dice.mean()

        loss = hm_loss + 0.1 * wh_loss + off_loss + seg_loss
        return loss, hm_loss, wh_loss, off_loss, seg_loss


def _targets():
    hm = torch.zeros(B, NC, OUT, OUT)
    ind = torch.zeros(B, MAXOBJ, dtype=torch.long)
    reg_mask = torch.zeros(B, MAXOBJ, dtype=torch.uint8)
    wh = torch.zeros(B, MAXOBJ, 2)
    reg = torch.zeros(B, MAXOBJ, 2)
    seg = torch.zeros(B, 1, IMG, IMG)
    ys, xs = torch.meshgrid(torch.arange(OUT).float(), torch.arange(OUT).float(), indexing="ij")
    for b in range(B):
        for k in range(int(torch.randint(1, MAXOBJ + 1, (1,)))):
            c = int(torch.randint(0, NC, (1,)))
            w, h = (torch.rand(2) * 40 + 8).tolist()
            cx, cy = (torch.rand(2) * (IMG - 20) + 10).tolist()
            ctr = torch.tensor([cx / 4, cy / 4])
            ci = ctr.floor().long()
            sigma = max(w, h) / 4 / 6
            g = torch.exp(-((xs - ci[0]) ** 2 + (ys - ci[1]) ** 2) / (2 * sigma * sigma))
            hm[b, c] = torch.maximum(hm[b, c], g)
            ind[b, k] = ci[1] * OUT + ci[0]
            reg_mask[b, k] = 1
            wh[b, k] = torch.tensor([w, h])
            reg[b, k] = ctr - ci.float()
            x0, x1 = int(max(cx - w / 2, 0)), int(min(cx + w / 2, IMG))
            y0, y1 = int(max(cy - h / 2, 0)), int(min(cy + h / 2, IMG))
            seg[b, 0, y0:y1, x0:x1] = 1
    return hm, ind, reg_mask, wh, reg, seg


def make():
    model = CenterNet()
    img = torch.randn(B, 3, IMG, IMG)
    return model, (img,) + _targets()
