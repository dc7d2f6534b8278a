"""timm's ViT Attention, hand-written: qkv.reshape(B, N, 3, H, D).permute(2, 0, 3, 1, 4),
q, k, v = qkv.unbind(0), attn = (q @ k.transpose(-2, -1)) * scale, softmax, attn_drop, proj;
a causal variant masks with torch.finfo(attn.dtype).min (the Hugging Face idiom)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r9_timm_attn_unbind"
TRAIN = True
B, N, C, H = 4, 17, 64, 4


class Attention(nn.Module):
    def __init__(self, dim, num_heads, causal=False):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.attn_drop = nn.Dropout(0.1)
        self.proj = nn.Linear(dim, dim)
        self.causal = causal

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        if self.causal:
            mask = torch.ones(N, N, dtype=torch.bool, device=x.device).triu(1)
            attn = attn.masked_fill(mask, torch.finfo(attn.dtype).min)
        attn = attn.softmax(dim=-1)
        attn = self.attn_drop(attn)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a1 = Attention(C, H)
        self.a2 = Attention(C, H, causal=True)
        self.head = nn.Linear(C, 5)

    def forward(self, x, y):
        x = x + self.a1(x)
        x = x + self.a2(x)
        return F.cross_entropy(self.head(x.mean(1)), y)


def make():
    return M(), (torch.randn(B, N, C), torch.randint(0, 5, (B,)))
