"""Single-level anchor detector (RetinaNet head on a small conv backbone) in training with the
loss users write by hand: pairwise IoU between 9216 anchors (a buffer) and up to 8 padded
ground-truth boxes per image (`torch.max`/`torch.min` on broadcast corners, clamp(min=0)), label
assignment by max IoU over boxes (`iou.max(dim=2)`), thresholds 0.5 / 0.4 with an ignore band,
every box's best anchor forced positive (`iou.argmax(dim=1)` + `scatter_`), matched boxes and
classes by `torch.gather`, one-hot targets via `F.one_hot`, sigmoid focal loss (torchvision's
formula: BCE-with-logits * (1 - p_t)^gamma * alpha_t) summed over non-ignored anchors with a
boolean mask (`focal[valid].sum()`), box deltas encoded against the anchors (log of w/h ratios)
with smooth-L1 on positives only (`smooth_l1_loss(box[pos], deltas[pos], reduction="sum")`),
SSD-style hard-negative mining of the objectness loss (`sort` twice to get ranks, 3 negatives per
positive), normalised by num_pos.clamp(min=1).
B8 x 3 x 256 x 256 input; first feature map 8 x 32 x 128 x 128 (16.8 MB); 32 x 32 x 9 anchors."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "det_focal"
TRAIN = True

B, IMG, NCLS, A, G, FM = 8, 256, 20, 9, 8, 32


def make_anchors():
    stride = IMG // FM
    ys, xs = torch.meshgrid(torch.arange(FM), torch.arange(FM), indexing="ij")
    cx = (xs.reshape(-1).float() + 0.5) * stride
    cy = (ys.reshape(-1).float() + 0.5) * stride
    sizes = torch.tensor([16.0, 32.0, 64.0])
    ratios = torch.tensor([0.5, 1.0, 2.0])
    w = (sizes[:, None] * ratios.sqrt()[None, :]).reshape(-1)
    h = (sizes[:, None] / ratios.sqrt()[None, :]).reshape(-1)
    cx, cy = cx[:, None].expand(-1, A), cy[:, None].expand(-1, A)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1).reshape(-1, 4)


def conv_bn(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(conv_bn(3, 32, 2), conv_bn(32, 64, 2), conv_bn(64, 128, 2))
        self.cls_head = nn.Sequential(nn.Conv2d(128, 128, 3, padding=1), nn.ReLU(), nn.Conv2d(128, A * NCLS, 3, padding=1))
        self.box_head = nn.Sequential(nn.Conv2d(128, 128, 3, padding=1), nn.ReLU(), nn.Conv2d(128, A * 4, 3, padding=1))
        self.obj_head = nn.Conv2d(128, A, 1)
        self.register_buffer("anchors", make_anchors())

    def forward(self, images, gt_boxes, gt_labels, gt_valid):
        f = self.backbone(images)
        n = f.shape[0]
        cls = self.cls_head(f).permute(0, 2, 3, 1).reshape(n, -1, NCLS)   # B, N, C
        box = self.box_head(f).permute(0, 2, 3, 1).reshape(n, -1, 4)      # B, N, 4
        obj = self.obj_head(f).permute(0, 2, 3, 1).reshape(n, -1)         # B, N

        # ---- label assignment (no gradient) ----
        anc = self.anchors
        lt = torch.max(anc[None, :, None, :2], gt_boxes[:, None, :, :2])
        rb = torch.min(anc[None, :, None, 2:], gt_boxes[:, None, :, 2:])
        wh = (rb - lt).clamp(min=0)
        inter = wh[..., 0] * wh[..., 1]
        area_a = (anc[:, 2] - anc[:, 0]) * (anc[:, 3] - anc[:, 1])
        area_g = (gt_boxes[..., 2] - gt_boxes[..., 0]) * (gt_boxes[..., 3] - gt_boxes[..., 1])
        iou = inter / (area_a[None, :, None] + area_g[:, None, :] - inter)
        iou = iou.masked_fill(~gt_valid[:, None, :], -1.0)                 # B, N, G
        best_iou, best_gt = iou.max(dim=2)                                 # B, N
        labels = torch.full_like(best_gt, -1)
        labels[best_iou < 0.4] = 0
        labels[best_iou >= 0.5] = 1
        force = iou.argmax(dim=1)                                          # B, G: each box's best anchor
        forced = torch.zeros_like(best_iou).scatter_(1, force, gt_valid.float()) > 0
        labels = torch.where(forced, torch.ones_like(labels), labels)
        pos = labels == 1
        valid = labels >= 0
        num_pos = pos.sum().clamp(min=1).float()

        # ---- focal classification loss ----
        cls_id = torch.gather(gt_labels, 1, best_gt)                       # B, N
        target = F.one_hot(cls_id, NCLS).float() * pos.unsqueeze(-1).float()
        p = torch.sigmoid(cls)
        ce = F.binary_cross_entropy_with_logits(cls, target, reduction="none")
        p_t = p * target + (1 - p) * (1 - target)
        alpha_t = 0.25 * target + 0.75 * (1 - target)
        focal = alpha_t * ce * (1 - p_t) ** 2
        cls_loss = focal[valid].sum() / num_pos

        # ---- box regression on positives ----
        matched = torch.gather(gt_boxes, 1, best_gt.unsqueeze(-1).expand(-1, -1, 4))
        aw = anc[:, 2] - anc[:, 0]
        ah = anc[:, 3] - anc[:, 1]
        acx = anc[:, 0] + 0.5 * aw
        acy = anc[:, 1] + 0.5 * ah
        gw = (matched[..., 2] - matched[..., 0]).clamp(min=1.0)
        gh = (matched[..., 3] - matched[..., 1]).clamp(min=1.0)
        gcx = matched[..., 0] + 0.5 * gw
        gcy = matched[..., 1] + 0.5 * gh
        deltas = torch.stack([(gcx - acx) / aw, (gcy - acy) / ah, torch.log(gw / aw), torch.log(gh / ah)], -1)
        box_loss = F.smooth_l1_loss(box[pos], deltas[pos], beta=1.0 / 9, reduction="sum") / num_pos

        # ---- objectness with SSD hard-negative mining ----
        obj_loss = F.binary_cross_entropy_with_logits(obj, pos.float(), reduction="none")
        neg_loss = obj_loss.detach().masked_fill(pos | ~valid, 0.0)
        _, order = neg_loss.sort(dim=1, descending=True)
        _, rank = order.sort(dim=1)
        num_neg = (3 * pos.sum(dim=1, keepdim=True)).clamp(max=obj.shape[1] - 1)
        hard = rank < num_neg
        obj_total = (obj_loss * (pos | hard).float()).sum() / num_pos

        return cls_loss + box_loss + obj_total, cls_loss.detach(), num_pos


def make():
    torch.manual_seed(0)
    images = torch.randn(B, 3, IMG, IMG)
    xy = torch.rand(B, G, 2) * (IMG - 80)
    wh = torch.rand(B, G, 2) * 70 + 10
    gt_boxes = torch.cat([xy, xy + wh], -1)
    gt_labels = torch.randint(0, NCLS, (B, G))
    gt_valid = torch.arange(G)[None, :] < torch.randint(2, G + 1, (B, 1))
    return Detector(), (images, gt_boxes, gt_labels, gt_valid)
