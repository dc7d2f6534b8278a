"""ViT-tiny style encoder: Conv2d patch embedding (4x4 on 32x32), class token via expand+torch.cat,
learned position embedding, 2 pre-LN blocks with nn.MultiheadAttention (batch_first, dropout),
GELU MLP, dropout, LayerNorm, class-token head, cross-entropy with label smoothing. Training, B8."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "vit_tiny"
TRAIN = True
D, HEADS, DEPTH, P, IMG, NC = 96, 3, 2, 4, 32, 10
N = (IMG // P) ** 2


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(D, eps=1e-6)
        self.attn = nn.MultiheadAttention(D, HEADS, dropout=0.1, batch_first=True)
        self.norm2 = nn.LayerNorm(D, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Dropout(0.1),
                                 nn.Linear(4 * D, D), nn.Dropout(0.1))

    def forward(self, x):
        h = self.norm1(x)
        a, _ = self.attn(h, h, h, need_weights=False)
        x = x + a
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(3, D, P, stride=P)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, D))
        self.pos = nn.Parameter(torch.randn(1, N + 1, D) * 0.02)
        self.pos_drop = nn.Dropout(0.1)
        self.blocks = nn.Sequential(*[Block() for _ in range(DEPTH)])
        self.norm = nn.LayerNorm(D, eps=1e-6)
        self.head = nn.Linear(D, NC)

    def forward(self, img, y):
        x = self.patch(img).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1)
        x = self.pos_drop(x + self.pos)
        x = self.blocks(x)
        logits = self.head(self.norm(x)[:, 0])
        return F.cross_entropy(logits, y, label_smoothing=0.1), logits


def make():
    return ViT(), (torch.randn(8, 3, IMG, IMG), torch.randint(0, NC, (8,)))
