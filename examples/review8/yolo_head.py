"""A YOLOv5-s-style detector slice in training with YOLOv5's ComputeLoss, written as in ultralytics'
models/common.py and utils/loss.py: Focus (space-to-depth by x[..., ::2, ::2] slicing + cat), Conv =
Conv2d(bias=False) + BatchNorm2d(eps=1e-3, momentum=0.03) + SiLU, C3 blocks with Bottlenecks, SPPF
(MaxPool2d(5, 1, 2) three times + cat), a top-down neck with nn.Upsample(nearest) + cat, a Detect
head at strides 16 and 32 (1x1 conv to na*(5+nc), view/permute to (b, na, ny, nx, no)), and the
loss: matched cells gathered by pi[b, a, gj, gi], box decode (sigmoid*2-0.5, (sigmoid*2)^2 *
anchor), CIoU (torch.atan, clamp, division; alpha under torch.no_grad), objectness targets
tobj[b, a, gj, gi] = iou.detach().clamp(0), BCEWithLogits for objectness (balanced per level) and
classes (one-hot built by index_put), summed with YOLOv5's hyp gains and * batch size.
B4 x 3 x 256 x 256: Focus output 4 x 32 x 128 x 128 (8.4 MB); 64 matched targets per level."""
import math

import torch
import torch.nn as nn

NAME = "r8_yolo_head"
TRAIN = True
B, IMG, NC, NA, NPOS = 4, 256, 3, 3, 64


def autopad(k, p=None):
    return k // 2 if p is None else p


class Conv(nn.Module):
    def __init__(self, c1, c2, k=1, s=1, p=None, g=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, autopad(k, p), groups=g, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c1, c2, shortcut=True, e=1.0):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c_, c2, 3, 1)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        return x + self.cv2(self.cv1(x)) if self.add else self.cv2(self.cv1(x))


class C3(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=True, e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c1, c_, 1, 1)
        self.cv3 = Conv(2 * c_, c2, 1)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut, e=1.0) for _ in range(n)))

    def forward(self, x):
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class Focus(nn.Module):
    def __init__(self, c1, c2, k=1):
        super().__init__()
        self.conv = Conv(c1 * 4, c2, k, 1)

    def forward(self, x):
        return self.conv(torch.cat((x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]), 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        c_ = c1 // 2
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c_ * 4, c2, 1, 1)
        self.m = nn.MaxPool2d(kernel_size=k, stride=1, padding=k // 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))


def bbox_iou(box1, box2, eps=1e-7):
    (x1, y1, w1, h1), (x2, y2, w2, h2) = box1.chunk(4, -1), box2.chunk(4, -1)
    w1_, h1_, w2_, h2_ = w1 / 2, h1 / 2, w2 / 2, h2 / 2
    b1_x1, b1_x2, b1_y1, b1_y2 = x1 - w1_, x1 + w1_, y1 - h1_, y1 + h1_
    b2_x1, b2_x2, b2_y1, b2_y2 = x2 - w2_, x2 + w2_, y2 - h2_, y2 + h2_
    inter = (torch.min(b1_x2, b2_x2) - torch.max(b1_x1, b2_x1)).clamp(0) * \
            (torch.min(b1_y2, b2_y2) - torch.max(b1_y1, b2_y1)).clamp(0)
    union = w1 * h1 + w2 * h2 - inter + eps
    iou = inter / union
    cw = torch.max(b1_x2, b2_x2) - torch.min(b1_x1, b2_x1)
    ch = torch.max(b1_y2, b2_y2) - torch.min(b1_y1, b2_y1)
    c2 = cw ** 2 + ch ** 2 + eps
    rho2 = ((b2_x1 + b2_x2 - b1_x1 - b1_x2) ** 2 + (b2_y1 + b2_y2 - b1_y1 - b1_y2) ** 2) / 4
    v = (4 / math.pi ** 2) * torch.pow(torch.atan(w2 / h2) - torch.atan(w1 / h1), 2)
    with torch.no_grad():
        alpha = v / (v - iou + (1 + eps))
    return iou - (rho2 / c2 + v * alpha)  # CIoU


class Detect(nn.Module):
    def __init__(self, nc, ch):
        super().__init__()
        self.nc, self.no, self.na = nc, nc + 5, NA
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)

    def forward(self, xs):
        out = []
        for i, x in enumerate(xs):
            x = self.m[i](x)
            bs, _, ny, nx = x.shape
            out.append(x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous())
        return out


class YoloSlice(nn.Module):
    def __init__(self):
        super().__init__()
        self.focus = Focus(3, 32, 3)
        self.b1 = nn.Sequential(Conv(32, 64, 3, 2), C3(64, 64, 1))        # /4
        self.b2 = nn.Sequential(Conv(64, 128, 3, 2), C3(128, 128, 2))     # /8
        self.b3 = nn.Sequential(Conv(128, 256, 3, 2), C3(256, 256, 1))    # /16
        self.b4 = nn.Sequential(Conv(256, 256, 3, 2), C3(256, 256, 1), SPPF(256, 256, 5))  # /32
        self.lat = Conv(256, 128, 1, 1)
        self.up = nn.Upsample(None, 2, "nearest")
        self.n1 = C3(128 + 256, 128, 1, shortcut=False)                  # /16
        self.detect = Detect(NC, (128, 128))
        self.register_buffer("anchors", torch.tensor([[[30., 61.], [62., 45.], [59., 119.]],
                                                      [[116., 90.], [156., 198.], [373., 326.]]]) /
                             torch.tensor([16., 32.]).view(2, 1, 1))
        self.bce = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0]))
        self.balance = [1.0, 0.4]

    def forward(self, img, b0, a0, gj0, gi0, tbox0, tcls0, b1, a1, gj1, gi1, tbox1, tcls1):
        x = self.b2(self.b1(self.focus(img)))
        p4 = self.b3(x)
        p5 = self.b4(p4)
        l5 = self.lat(p5)
        n4 = self.n1(torch.cat([self.up(l5), p4], 1))
        p = self.detect([n4, l5])
        targets = [(b0, a0, gj0, gi0, tbox0, tcls0), (b1, a1, gj1, gi1, tbox1, tcls1)]
        lcls = torch.zeros(1)
        lbox = torch.zeros(1)
        lobj = torch.zeros(1)
        for i, pi in enumerate(p):
            b, a, gj, gi, tb, tc = targets[i]
            tobj = torch.zeros(pi.shape[:4], dtype=pi.dtype)
            n = b.shape[0]
            pxy, pwh, _, pcls = pi[b, a, gj, gi].split((2, 2, 1, NC), 1)
            pxy = pxy.sigmoid() * 2 - 0.5
            pwh = (pwh.sigmoid() * 2) ** 2 * self.anchors[i][a]
            pbox = torch.cat((pxy, pwh), 1)
            iou = bbox_iou(pbox, tb).squeeze()
            lbox = lbox + (1.0 - iou).mean()
            iou = iou.detach().clamp(0).type(tobj.dtype)  # refused by gcdbg run before 7d197ce (finding 4)
            tobj[b, a, gj, gi] = iou
            t = torch.full_like(pcls, 0.0)
            t[torch.arange(n), tc] = 1.0
            lcls = lcls + self.bce(pcls, t)
            obji = self.bce(pi[..., 4], tobj)
            lobj = lobj + obji * self.balance[i]
        lbox = lbox * 0.05
        lobj = lobj * 1.0
        lcls = lcls * 0.5
        bs = tobj.shape[0]
        return (lbox + lobj + lcls) * bs


def _targets(g):
    b = torch.randint(0, B, (NPOS,))
    a = torch.randint(0, NA, (NPOS,))
    gj = torch.randint(0, g, (NPOS,))
    gi = torch.randint(0, g, (NPOS,))
    xy = torch.rand(NPOS, 2) * 2 - 0.5
    wh = torch.rand(NPOS, 2) * 3 + 0.3
    return b, a, gj, gi, torch.cat([xy, wh], 1), torch.randint(0, NC, (NPOS,))


def make():
    img = torch.rand(B, 3, IMG, IMG)
    return YoloSlice().train(), (img,) + _targets(IMG // 16) + _targets(IMG // 32)
