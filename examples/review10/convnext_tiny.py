import torch
from torch import nn
import torch.nn.functional as F

NAME = "convnext_tiny"
TRAIN = True


def drop_path(x, drop_prob: float = 0.0, training: bool = False, scale_by_keep: bool = True):
    # timm's drop_path
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training)


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over channels of NCHW (timm style: permute to NHWC and back)."""

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        x = x.permute(0, 3, 1, 2)
        return x


class Block(nn.Module):
    def __init__(self, dim, drop_path=0.0, ls_init=1e-6):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(ls_init * torch.ones(dim))
        self.drop_path = DropPath(drop_path)

    def forward(self, x):
        shortcut = x
        x = self.dwconv(x)
        x = x.permute(0, 2, 3, 1)
        x = self.norm(x)
        x = self.pwconv1(x)
        x = self.act(x)
        x = self.pwconv2(x)
        x = x * self.gamma
        x = x.permute(0, 3, 1, 2)
        return shortcut + self.drop_path(x)


class TinyConvNeXt(nn.Module):
    def __init__(self, in_chans=3, num_classes=10, dims=(32, 64, 128), depths=(1, 2, 1), dp=0.2):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(in_chans, dims[0], kernel_size=4, stride=4),
            nn.BatchNorm2d(dims[0]),
        )
        rates = torch.linspace(0, dp, sum(depths)).tolist()
        self.stages = nn.ModuleList()
        self.downs = nn.ModuleList()
        cur = 0
        for i, d in enumerate(dims):
            if i > 0:
                self.downs.append(nn.Sequential(LayerNorm2d(dims[i - 1], eps=1e-6), nn.Conv2d(dims[i - 1], d, kernel_size=2, stride=2)))
            self.stages.append(nn.Sequential(*[Block(d, rates[cur + j], ls_init=0.5) for j in range(depths[i])]))
            cur += depths[i]
        self.norm = nn.LayerNorm(dims[-1], eps=1e-6)
        self.drop = nn.Dropout(0.3)
        self.head = nn.Linear(dims[-1], num_classes)

    def forward(self, x, target):
        x = self.stem(x)
        for i, stage in enumerate(self.stages):
            if i > 0:
                x = self.downs[i - 1](x)
            x = stage(x)
        x = self.norm(x.mean([-2, -1]))
        logits = self.head(self.drop(x))
        loss = F.cross_entropy(logits, target)
        return loss


def make():
    model = TinyConvNeXt()
    x = torch.randn(16, 3, 64, 64)
    y = torch.randint(0, 10, (16,))
    return model, (x, y)
