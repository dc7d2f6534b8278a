"""EfficientNet-B0-style classifier in training: stem Conv3x3/2 + BatchNorm + SiLU, three MBConv
blocks (1x1 expand + BN + SiLU, depthwise 3x3 or 5x5 + BN + SiLU, squeeze-and-excitation with
adaptive_avg_pool2d(1) -> 1x1 conv -> SiLU -> 1x1 conv -> sigmoid gating, 1x1 project + BN) with
stochastic depth on the residual blocks written as timm's drop_path (a per-sample
x.new_empty(shape).bernoulli_(keep_prob).div_(keep_prob)), a 1x1 head conv + BN + SiLU, global
average pooling, Dropout(0.2), Linear to 100 classes, cross-entropy with label_smoothing=0.1.
BatchNorm in training mode (running stats updated). B16 x 3 x 128 x 128: the first expanded
activation is 16 x 96 x 64 x 64 (25 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "effnet_block"
TRAIN = True


def drop_path(x, drop_prob: float = 0.0, training: bool = False):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_path(x, self.p, self.training)


class ConvBNAct(nn.Sequential):
    def __init__(self, cin, cout, k, stride=1, groups=1, act=True):
        layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
                  nn.BatchNorm2d(cout, eps=1e-3, momentum=0.01)]
        if act:
            layers.append(nn.SiLU(inplace=True))
        super().__init__(*layers)


class SqueezeExcite(nn.Module):
    def __init__(self, c, squeeze):
        super().__init__()
        self.fc1 = nn.Conv2d(c, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, c, 1)
        self.act = nn.SiLU()

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        s = self.fc2(self.act(self.fc1(s)))
        return x * torch.sigmoid(s)


class MBConv(nn.Module):
    def __init__(self, cin, cout, k, stride, expand, drop):
        super().__init__()
        mid = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.expand = ConvBNAct(cin, mid, 1)
        self.dw = ConvBNAct(mid, mid, k, stride, groups=mid)
        self.se = SqueezeExcite(mid, max(1, cin // 4))
        self.project = ConvBNAct(mid, cout, 1, act=False)
        self.drop_path = DropPath(drop)

    def forward(self, x):
        y = self.project(self.se(self.dw(self.expand(x))))
        if self.use_res:
            y = self.drop_path(y) + x
        return y


class EffNet(nn.Module):
    def __init__(self, classes=100):
        super().__init__()
        self.stem = ConvBNAct(3, 24, 3, 2)
        self.blocks = nn.Sequential(
            MBConv(24, 24, 3, 1, 4, 0.1),
            MBConv(24, 40, 5, 2, 4, 0.0),
            MBConv(40, 40, 5, 1, 4, 0.2),
        )
        self.head = ConvBNAct(40, 320, 1)
        self.dropout = nn.Dropout(0.2)
        self.classifier = nn.Linear(320, classes)

    def forward(self, x, target):
        x = self.head(self.blocks(self.stem(x)))
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        logits = self.classifier(self.dropout(x))
        return F.cross_entropy(logits, target, label_smoothing=0.1)


def make():
    return EffNet(), (torch.randn(16, 3, 128, 128), torch.randint(0, 100, (16,)))
