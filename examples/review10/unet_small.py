import torch
from torch import nn
import torch.nn.functional as F

NAME = "unet_small"
TRAIN = True


class ResBlock(nn.Module):
    def __init__(self, cin, cout, groups=8):
        super().__init__()
        self.n1 = nn.GroupNorm(groups, cin)
        self.c1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.n2 = nn.GroupNorm(groups, cout)
        self.c2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.drop = nn.Dropout(0.1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x):
        h = self.c1(F.silu(self.n1(x)))
        h = self.c2(self.drop(F.silu(self.n2(h))))
        return h + self.skip(x)


class Down(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.block = ResBlock(cin, cout)

    def forward(self, x):
        return self.block(F.max_pool2d(x, 2))


class Up(nn.Module):
    def __init__(self, cin, cskip, cout, mode):
        super().__init__()
        self.mode = mode
        self.block = ResBlock(cin + cskip, cout)

    def forward(self, x1, x2):
        if self.mode == "bilinear":
            x1 = F.interpolate(x1, scale_factor=2, mode="bilinear", align_corners=False)
        else:
            x1 = F.interpolate(x1, scale_factor=2, mode="nearest")
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        return self.block(torch.cat([x2, x1], dim=1))


class UNet(nn.Module):
    def __init__(self, cin=3, ncls=4, base=16):
        super().__init__()
        self.inc = nn.Conv2d(cin, base, 3, padding=1, padding_mode="reflect")
        self.d1 = Down(base, base * 2)
        self.d2 = Down(base * 2, base * 4)
        self.mid = ResBlock(base * 4, base * 4)
        self.u1 = Up(base * 4, base * 2, base * 2, "bilinear")
        self.u2 = Up(base * 2, base, base, "nearest")
        self.outc = nn.Conv2d(base, ncls, 1)

    def forward(self, x, mask):
        x0 = F.hardswish(self.inc(x))
        x1 = self.d1(x0)
        x2 = self.d2(x1)
        m = self.mid(x2)
        u = self.u1(m, x1)
        u = self.u2(u, x0)
        logits = self.outc(u)
        ce = F.cross_entropy(logits, mask)
        probs = logits.softmax(1)
        onehot = F.one_hot(mask, 4).permute(0, 3, 1, 2).float()
        inter = (probs * onehot).sum((0, 2, 3))
        denom = probs.sum((0, 2, 3)) + onehot.sum((0, 2, 3))
        dice = 1 - ((2 * inter + 1e-5) / (denom + 1e-5)).mean()
        return ce + dice


def make():
    model = UNet()
    x = torch.randn(4, 3, 46, 46)  # odd sizes after pooling force the F.pad branch
    mask = torch.randint(0, 4, (4, 46, 46))
    return model, (x, mask)
