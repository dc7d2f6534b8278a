"""CLIP-style contrastive pretraining step in training: an image tower (3 x Conv-BN-ReLU, stride 2,
nn.AdaptiveAvgPool2d(1), flatten, Linear projection) and a text tower (nn.Embedding(padding_idx=0)
+ learned positional embedding, LayerNorm, a 2-layer GELU MLP per token, masked mean over the
non-padding tokens, Linear projection), both F.normalize'd to the unit sphere; a learnable
temperature `logit_scale = nn.Parameter(log(1/0.07))` used as `logit_scale.exp().clamp(max=100)`,
the B x B similarity matrix `scale * img @ txt.t()`, and the symmetric InfoNCE loss
(cross_entropy over rows and over columns against torch.arange(B), averaged); image->text top-1
accuracy as a second output (argmax == labels).float().mean().
B128 images 3 x 64 x 64; first feature map 128 x 32 x 32 x 32 (16.8 MB); 32-token captions."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "clip_contrastive"
TRAIN = True

B, IMG, VOCAB, L, D, EMB = 128, 64, 5000, 32, 128, 64


class ImageTower(nn.Module):
    def __init__(self):
        super().__init__()
        chans = [3, 32, 64, 128]
        layers = []
        for cin, cout in zip(chans[:-1], chans[1:]):
            layers += [nn.Conv2d(cin, cout, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        self.body = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.proj = nn.Linear(128, EMB)

    def forward(self, x):
        return self.proj(torch.flatten(self.pool(self.body(x)), 1))


class TextTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D, padding_idx=0)
        self.pos = nn.Parameter(torch.randn(1, L, D) * 0.02)
        self.ln = nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))
        self.proj = nn.Linear(D, EMB, bias=False)

    def forward(self, ids):
        mask = (ids != 0).unsqueeze(-1).float()          # B, L, 1
        h = self.tok(ids) + self.pos[:, : ids.size(1)]
        h = h + self.mlp(self.ln(h))
        pooled = (h * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.proj(pooled)


class CLIP(nn.Module):
    def __init__(self):
        super().__init__()
        self.visual = ImageTower()
        self.text = TextTower()
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))

    def forward(self, images, ids):
        img = F.normalize(self.visual(images), dim=-1)
        txt = F.normalize(self.text(ids), dim=-1)
        scale = self.logit_scale.exp().clamp(max=100)
        logits = scale * img @ txt.t()
        labels = torch.arange(logits.size(0), device=logits.device)
        loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
        acc = (logits.argmax(dim=1) == labels).float().mean()
        return loss, acc


def make():
    images = torch.randn(B, 3, IMG, IMG)
    lengths = torch.randint(5, L + 1, (B,))
    ids = torch.randint(1, VOCAB, (B, L))
    ids = ids.masked_fill(torch.arange(L)[None, :] >= lengths[:, None], 0)
    return CLIP(), (images, ids)
