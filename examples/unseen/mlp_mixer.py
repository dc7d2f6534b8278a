"""MLP-Mixer on 32x32 images: patch embedding by a strided Conv2d (patch 4), flatten/transpose
to tokens, 4 Mixer layers (LayerNorm, token-mixing MLP on the transposed tensor, channel-mixing
MLP, GELU), mean over tokens, Linear head, cross-entropy; training, batch 16 x 3x32x32."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "mlp_mixer"
TRAIN = True


class MlpBlock(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class MixerLayer(nn.Module):
    def __init__(self, n_tokens, dim, tok_hidden, ch_hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mix = MlpBlock(n_tokens, tok_hidden)
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mix = MlpBlock(dim, ch_hidden)

    def forward(self, x):
        y = self.norm1(x).transpose(1, 2)
        x = x + self.token_mix(y).transpose(1, 2)
        x = x + self.channel_mix(self.norm2(x))
        return x


class Mixer(nn.Module):
    def __init__(self, img=32, patch=4, dim=128, depth=4, num_classes=10):
        super().__init__()
        n = (img // patch) ** 2
        self.patch_embed = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)
        self.layers = nn.Sequential(*[MixerLayer(n, dim, 64, 512) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x, y):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)  # B, N, C
        x = self.layers(x)
        x = self.norm(x).mean(dim=1)
        return F.cross_entropy(self.head(x), y)


def make():
    return Mixer(), (torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,)))
