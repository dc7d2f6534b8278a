"""WaveNet-style autoregressive audio model in training: 8-bit mu-law samples through an
nn.Embedding(256, 64) (transposed to B x C x T), a causal 2-tap Conv1d, then 8 residual layers
with dilations 1..128: each left-pads with F.pad(x, (dilation, 0)) and runs a dilated
Conv1d(64, 128, 2), splits the result with torch.chunk into filter and gate, gated activation
torch.tanh(f) * torch.sigmoid(g), a 1x1 Conv1d to the residual (added to the input, scaled by
sqrt(0.5)) and a 1x1 Conv1d to the skip path (summed over layers); ReLU -> 1x1 conv -> ReLU -> 1x1
conv to 256 classes, cross-entropy over the class dimension of a B x 256 x T logit tensor against
the next sample. B8 x T4096: each gated pre-activation is 8 x 128 x 4096 (16.8 MB), the logits
33.5 MB."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "relu_flip_wavenet"
TRAIN = True

Q, RES, SKIP, T = 256, 64, 128, 512
DILATIONS = [1, 2, 4, 8, 16, 32, 64, 128]


class CausalConv1d(nn.Conv1d):
    def __init__(self, cin, cout, k, dilation=1):
        super().__init__(cin, cout, k, dilation=dilation)
        self.left = (k - 1) * dilation

    def forward(self, x):
        return super().forward(F.pad(x, (self.left, 0)))


class ResidualLayer(nn.Module):
    def __init__(self, dilation):
        super().__init__()
        self.dilated = CausalConv1d(RES, 2 * RES, 2, dilation)
        self.res = nn.Conv1d(RES, RES, 1)
        self.skip = nn.Conv1d(RES, SKIP, 1)

    def forward(self, x):
        f, g = torch.chunk(self.dilated(x), 2, dim=1)
        z = torch.tanh(f) * torch.sigmoid(g)
        return (x + self.res(z)) * math.sqrt(0.5), self.skip(z)


class WaveNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(Q, RES)
        self.causal = CausalConv1d(RES, RES, 2)
        self.layers = nn.ModuleList([ResidualLayer(d) for d in DILATIONS])
        self.out1 = nn.Conv1d(SKIP, SKIP, 1)
        self.out2 = nn.Conv1d(SKIP, Q, 1)

    def forward(self, audio):
        inp, target = audio[:, :-1], audio[:, 1:]
        x = self.causal(self.embed(inp).transpose(1, 2))
        skips = 0
        for layer in self.layers:
            x, s = layer(x)
            skips = skips + s
        logits = self.out2(F.relu(self.out1(F.relu(skips))))
        return F.cross_entropy(logits, target)


def make():
    return WaveNet(), (torch.randint(0, Q, (8, T + 1)),)
