"""Convolution, pooling, resampling, padding and recurrent-cell modules and
functions of issue 15 in one small training-mode network (a 1-D CNN branch,
a 2-D encoder/decoder branch, a recurrent step), exported with --train."""
import torch
import torch.nn.functional as F
from torch import nn

NAME = "zoo_ext_nn"
TRAIN = True


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(3, 6, 3, stride=1, padding=1, dilation=1, groups=3)
        self.mp1 = nn.MaxPool1d(2, ceil_mode=True)
        self.ap1 = nn.AvgPool1d(3, stride=1, padding=1)
        self.aap1 = nn.AdaptiveAvgPool1d(4)
        self.amp1 = nn.AdaptiveMaxPool1d(4)
        self.ct1 = nn.ConvTranspose1d(6, 2, 3, stride=2, padding=1, output_padding=1)
        self.pad = nn.ReflectionPad2d((1, 1, 2, 0))
        self.rpad = nn.ReplicationPad2d(1)
        self.zpad = nn.ZeroPad2d((0, 1, 1, 0))
        self.c2 = nn.Conv2d(2, 8, 3, padding=1, dilation=1)
        self.ps = nn.PixelShuffle(2)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.upb = nn.Upsample(size=(5, 7), mode="bilinear", align_corners=False)
        self.ct2 = nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.amp2 = nn.AdaptiveMaxPool2d((3, 2))
        self.lrn = nn.LocalResponseNorm(3, alpha=0.01)
        self.c3 = nn.Conv3d(1, 2, (2, 3, 3), padding=(0, 1, 1))
        self.gru = nn.GRUCell(8, 5)
        self.lstm = nn.LSTMCell(8, 5)
        self.cos = nn.CosineSimilarity(dim=1)

    def forward(self, x1, x2, h, c):
        a = self.c1(x1)                                            # [2, 6, 10]
        a = self.mp1(a) + self.ap1(a)[..., :5] + self.aap1(a).sum(-1, keepdim=True) + self.amp1(a).mean(-1, keepdim=True)
        t = self.ct1(a)                                            # [2, 2, 10]
        y = self.pad(x2) + self.rpad(x2) * 0.5                     # [2, 2, 8, 8]
        y = self.zpad(y)[:, :, :8, 1:]
        y = self.ps(self.c2(y))                                    # [2, 2, 16, 16]
        y = self.up(F.avg_pool2d(y, 4)) + self.upb(y[:, :, :4, :4]).mean()  # [2, 2, 8, 8]
        y = self.lrn(self.ct2(y))                                  # [2, 4, 16, 16]
        m = self.amp2(y).flatten(1)                                # [2, 24]
        v = self.c3(y[:, :3].unsqueeze(1)[:, :, :, :6, :6]).flatten(1)
        f = F.pad(torch.cat([m[:, :4], t.flatten(1)[:, :2], v[:, :2]], 1), (0, 0), "constant", 0.0)
        f = F.normalize(f, dim=1) + F.interpolate(f.unsqueeze(1), size=8, mode="linear", align_corners=True).squeeze(1)
        hg = self.gru(f, h)
        hl, cl = self.lstm(f, (h, c))
        s = self.cos(hg, hl) + torch.cdist(hg, hl).sum(1) + torch.diagonal(hg @ hl.t())
        return s.sum() + cl.sum()


def make():
    m = Model()
    return m, (torch.randn(2, 3, 10), torch.randn(2, 2, 6, 6), torch.randn(2, 5), torch.randn(2, 5))
