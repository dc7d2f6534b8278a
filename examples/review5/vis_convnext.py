"""ConvNeXt-style classifier in training, as a user ports it from the paper's reference code:
a 4x4 stride-4 patchify stem with a channels-first LayerNorm written by hand (mean/var over dim
1), ConvNeXt blocks (depthwise Conv2d 7x7 padding 3 -> permute(0, 2, 3, 1) -> nn.LayerNorm(C)
-> Linear(C, 4C) -> GELU -> Linear(4C, C) -> layer scale gamma (1e-6 init is useless for a test,
so 0.5) -> permute back -> DropPath with torch.rand per sample -> residual), a 2x2 stride-2
downsampling layer between stages, global average pooling, a final LayerNorm and Linear head,
cross_entropy with label_smoothing=0.1. The input is given in channels_last memory format.
B16 x 3 x 128^2; stage-1 maps 16 x 64 x 32^2 (4.2 MB), MLP hidden 16 x 32 x 32 x 256 (16.8 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "vis_convnext"
TRAIN = True


class LayerNorm2d(nn.Module):
    """channels-first LayerNorm as in the ConvNeXt repo (data_format="channels_first")."""
    def __init__(self, c, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(c))
        self.bias = nn.Parameter(torch.zeros(c))
        self.eps = eps

    def forward(self, x):
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


def drop_path(x, p: float, training: bool):
    if p == 0.0 or not training:
        return x
    keep = 1 - p
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    mask = keep + torch.rand(shape, dtype=x.dtype, device=x.device)
    mask.floor_()
    return x.div(keep) * mask


class Block(nn.Module):
    def __init__(self, dim, dp):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(0.5 * torch.ones(dim))
        self.dp = dp

    def forward(self, x):
        inp = x
        x = self.dwconv(x)
        x = x.permute(0, 2, 3, 1)
        x = self.pwconv2(self.act(self.pwconv1(self.norm(x))))
        x = self.gamma * x
        x = x.permute(0, 3, 1, 2)
        return inp + drop_path(x, self.dp, self.training)


class ConvNeXt(nn.Module):
    def __init__(self, dims=(64, 128, 256), depths=(2, 2, 2), classes=100):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, dims[0], 4, stride=4), LayerNorm2d(dims[0]))
        rates = [0.1 * i / (sum(depths) - 1) for i in range(sum(depths))]
        stages, downs, k = [], [], 0
        for i, (d, n) in enumerate(zip(dims, depths)):
            stages.append(nn.Sequential(*[Block(d, rates[k + j]) for j in range(n)]))
            k += n
            if i + 1 < len(dims):
                downs.append(nn.Sequential(LayerNorm2d(d), nn.Conv2d(d, dims[i + 1], 2, stride=2)))
        self.stages = nn.ModuleList(stages)
        self.downs = nn.ModuleList(downs)
        self.norm = nn.LayerNorm(dims[-1], eps=1e-6)
        self.head = nn.Linear(dims[-1], classes)

    def forward(self, x, y):
        x = self.stem(x)
        for i, stage in enumerate(self.stages):
            x = stage(x)
            if i < len(self.downs):
                x = self.downs[i](x)
        logits = self.head(self.norm(x.mean([-2, -1])))
        return F.cross_entropy(logits, y, label_smoothing=0.1), logits


def make():
    x = torch.randn(16, 3, 128, 128).to(memory_format=torch.channels_last)
    y = torch.randint(0, 100, (16,))
    return ConvNeXt(), (x, y)
