"""ViT-tiny image classifier in training, written as a user following the ViT paper / timm:
Conv2d patch embedding (kernel = stride = 8 on 64x64 -> 64 patches), a class token and a learned
position embedding as nn.Parameter (trunc_normal_ init, the class token's position added
separately before the torch.cat), 3 pre-LN nn.TransformerEncoderLayer(norm_first=True,
activation="gelu", batch_first) kept in an nn.ModuleList, final LayerNorm, head on the class
token, cross-entropy with label_smoothing=0.1. Training, B16 x 3 x 64 x 64, d192, 3 heads."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "vit_patch8"
TRAIN = True

IMG, PATCH, DIM, DEPTH, HEADS, MLP, CLASSES = 64, 8, 192, 3, 3, 768, 100


class PatchEmbed(nn.Module):
    def __init__(self, img=IMG, patch=PATCH, cin=3, dim=DIM):
        super().__init__()
        self.num_patches = (img // patch) ** 2
        self.proj = nn.Conv2d(cin, dim, kernel_size=patch, stride=patch)

    def forward(self, x):
        x = self.proj(x)                       # B, D, H/p, W/p
        return x.flatten(2).transpose(1, 2)    # B, N, D


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_embed = PatchEmbed()
        n = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, DIM))
        self.pos_embed = nn.Parameter(torch.zeros(1, n + 1, DIM))
        self.pos_drop = nn.Dropout(p=0.1)
        self.blocks = nn.ModuleList([
            nn.TransformerEncoderLayer(DIM, HEADS, dim_feedforward=MLP, dropout=0.1,
                                       activation="gelu", batch_first=True, norm_first=True)
            for _ in range(DEPTH)])
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, CLASSES)
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)

    def forward(self, images, labels):
        x = self.patch_embed(images)
        x = x + self.pos_embed[:, 1:, :]
        cls = self.cls_token + self.pos_embed[:, :1, :]
        x = torch.cat((cls.expand(x.shape[0], -1, -1), x), dim=1)
        x = self.pos_drop(x)
        for blk in self.blocks:
            x = blk(x)
        x = self.norm(x)
        logits = self.head(x[:, 0])
        loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
        return loss, logits


def make():
    model = ViT()
    images = torch.randn(16, 3, IMG, IMG)
    labels = torch.randint(0, CLASSES, (16,))
    return model, (images, labels)
