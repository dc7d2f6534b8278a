"""ViT-Tiny style classifier, one training step, written like the usual CIFAR ViT repos / timm:
PatchEmbed (Conv2d 3->192, kernel 4 stride 4) -> flatten(2).transpose(1, 2), a learned cls token
(expand + cat), a learned position embedding (trunc_normal_ init), pos Dropout, 4 pre-norm blocks
(LayerNorm -> nn.MultiheadAttention(batch_first=True, dropout=0.1) -> residual; LayerNorm ->
Linear/GELU/Dropout/Linear/Dropout MLP -> residual), final LayerNorm, cls token head,
CrossEntropyLoss(label_smoothing=0.1).
B16 x 3 x 32^2, patch 4 -> 64 patches + cls = 65 tokens x 192; MLP hidden 16 x 65 x 768 (3.2 MB);
attention weights 16 x 3 x 65^2 (0.8 MB)."""
import torch
import torch.nn as nn

NAME = "r9_vit_tiny_ls"
TRAIN = True
B, IMG, P, DIM, DEPTH, HEADS, MLP, NC = 16, 32, 4, 192, 4, 3, 768, 10


class Block(nn.Module):
    def __init__(self, dim, heads, mlp, drop=0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=drop, batch_first=True)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp), nn.GELU(), nn.Dropout(drop),
                                 nn.Linear(mlp, dim), nn.Dropout(drop))

    def forward(self, x):
        h = self.norm1(x)
        a, _ = self.attn(h, h, h, need_weights=False)
        x = x + a
        x = x + self.mlp(self.norm2(x))
        return x


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, DIM, kernel_size=P, stride=P)
        n = (IMG // P) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, DIM))
        self.pos_embed = nn.Parameter(torch.zeros(1, n + 1, DIM))
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        self.pos_drop = nn.Dropout(0.1)
        self.blocks = nn.Sequential(*[Block(DIM, HEADS, MLP) for _ in range(DEPTH)])
        self.norm = nn.LayerNorm(DIM, eps=1e-6)
        self.head = nn.Linear(DIM, NC)
        self.criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    def forward(self, x, y):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1)
        x = self.pos_drop(x + self.pos_embed)
        x = self.blocks(x)
        x = self.norm(x)
        logits = self.head(x[:, 0])
        return self.criterion(logits, y)


def make():
    return ViT(), (torch.randn(B, 3, IMG, IMG), torch.randint(0, NC, (B,)))
