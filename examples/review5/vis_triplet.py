"""A face/re-ID style metric-learning step: one embedding CNN shared by anchor, positive and
negative batches (concatenated, as a user does to run the tower once), convolutions with Weight
Standardization (a Conv2d subclass standardizing its weight in forward, as BiT/ResNet-GN code
does) followed by GroupNorm(8, C) and Mish, a SELU projection MLP, F.normalize to the unit
sphere; loss F.triplet_margin_loss(margin=0.2) + F.cosine_embedding_loss on anchor/positive
(target 1) and anchor/negative (target -1) with margin 0.1, plus an accuracy metric
(d(a, p) < d(a, n)). BatchNorm1d in the projection head is frozen with .eval() after a few
warm-up steps in make() (running stats used, not batch stats). Inputs in channels_last.
3 x B32 x 3 x 96^2 through the tower: first maps 96 x 32 x 96^2 (113 MB)... too big for this
machine, so 48 x 96^2: 96 x 48 x 48^2 after the strided stem (42.5 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "vis_triplet"
TRAIN = True

B = 32


class WSConv2d(nn.Conv2d):
    def forward(self, x):
        w = self.weight
        m = w.mean(dim=(1, 2, 3), keepdim=True)
        v = w.var(dim=(1, 2, 3), keepdim=True, unbiased=False)
        w = (w - m) / torch.sqrt(v + 1e-5)
        return F.conv2d(x, w, self.bias, self.stride, self.padding, self.dilation, self.groups)


def block(cin, cout, stride):
    return nn.Sequential(WSConv2d(cin, cout, 3, stride, 1, bias=False), nn.GroupNorm(8, cout), nn.Mish())


class Embed(nn.Module):
    def __init__(self, dim=128):
        super().__init__()
        self.tower = nn.Sequential(block(3, 48, 2), block(48, 48, 1), block(48, 96, 2), block(96, 96, 1),
                                   block(96, 192, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.proj = nn.Sequential(nn.Linear(192, 256), nn.BatchNorm1d(256), nn.SELU(), nn.AlphaDropout(0.05),
                                  nn.Linear(256, dim))

    def forward(self, x):
        return F.normalize(self.proj(self.tower(x)), dim=1)


class TripletStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = Embed()

    def forward(self, a, p, n):
        e = self.embed(torch.cat([a, p, n], 0))
        ea, ep, en = e.chunk(3, 0)
        ones = torch.ones(a.size(0), device=a.device)
        loss = F.triplet_margin_loss(ea, ep, en, margin=0.2) + \
            0.5 * F.cosine_embedding_loss(ea, ep, ones, margin=0.1) + \
            0.5 * F.cosine_embedding_loss(ea, en, -ones, margin=0.1)
        acc = ((ea - ep).norm(dim=1) < (ea - en).norm(dim=1)).float().mean()
        return loss, acc, e


def make():
    step = TripletStep()
    with torch.no_grad():   # warm-up so the frozen BatchNorm1d has non-trivial running stats
        for _ in range(3):
            step.embed(torch.randn(16, 3, 32, 32))
    step.embed.proj[1].eval()
    mk = lambda: torch.randn(B, 3, 96, 96).to(memory_format=torch.channels_last)
    a = mk()
    return step, (a, a + 0.3 * torch.randn_like(a), mk())
