"""Conv net with GroupNorm and InstanceNorm2d (style-transfer / small-batch detection style):
Conv-GroupNorm(8)-SiLU blocks, an InstanceNorm2d(affine, track_running_stats) branch, a
reflection-padded conv, F.adaptive_avg_pool2d, Linear, cross-entropy. Training, B4 x 3 x 48 x 48."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "gn_net"
TRAIN = True


class GNBlock(nn.Module):
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


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.pad = nn.ReflectionPad2d(3)
        self.stem = nn.Conv2d(3, 32, 7)
        self.inorm = nn.InstanceNorm2d(32, affine=True, track_running_stats=True)
        self.b1 = GNBlock(32, 32, 1)
        self.b2 = GNBlock(32, 64, 2)
        self.in2 = nn.InstanceNorm2d(64)
        self.fc = nn.Linear(64, 10)

    def forward(self, x, y):
        x = F.relu(self.inorm(self.stem(self.pad(x))))
        x = self.b2(self.b1(x))
        x = self.in2(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        logits = self.fc(x)
        return F.cross_entropy(logits, y)


def make():
    return Net(), (torch.randn(4, 3, 48, 48), torch.randint(0, 10, (4,)))
