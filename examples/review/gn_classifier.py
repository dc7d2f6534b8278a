"""A GroupNorm conv classifier in training, as users write one for small-batch training:
Conv2d stem, two residual stages of Conv2d + GroupNorm(8) + SiLU at 64x64 and 32x32 (batch 8),
global average pool, a 1000-class head with label-smoothed cross-entropy, and an L2 penalty
written as sum(p.pow(2)) over the head's weight. Exercises what this change touched: GroupNorm's
view index folding, pow by 2, cross-entropy's fused backward (scatter of the target)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.gn1 = nn.GroupNorm(8, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.gn2 = nn.GroupNorm(8, cout)
        self.skip = nn.Conv2d(cin, cout, 1, stride, bias=False) if (cin != cout or stride != 1) else nn.Identity()

    def forward(self, x):
        h = F.silu(self.gn1(self.conv1(x)))
        h = self.gn2(self.conv2(h))
        return F.silu(h + self.skip(x))


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, 1, 1, bias=False)
        self.gn = nn.GroupNorm(8, 32)
        self.b1 = Block(32, 32, 1)
        self.b2 = Block(32, 64, 2)
        self.head = nn.Linear(64, 1000)

    def forward(self, x, y):
        h = F.silu(self.gn(self.stem(x)))
        h = self.b2(self.b1(h))
        logits = self.head(h.mean((2, 3)))
        return F.cross_entropy(logits, y, label_smoothing=0.1) + 1e-4 * self.head.weight.pow(2).sum()


def make():
    return M(), (torch.randn(8, 3, 64, 64), torch.randint(0, 1000, (8,)))
