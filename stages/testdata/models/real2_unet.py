"""Issue 15, second round: a small U-Net with Conv2d(padding_mode='reflect'/'replicate'/'circular')
and Conv1d(padding='same', padding_mode='reflect'), in training (exporter/gcdbg_export.py --train)."""
import torch
import torch.nn.functional as F
from torch import nn
NAME = "real2_unet"
TRAIN = True
def block(i, o, mode):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, padding_mode=mode), nn.GroupNorm(2, o), nn.ReLU())
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.d1 = block(3, 8, "reflect")
        self.d2 = block(8, 8, "replicate")
        self.mid = nn.Conv2d(8, 8, (3, 3), padding=(2, 1), dilation=(2, 1), padding_mode="circular")
        self.up = nn.ConvTranspose2d(8, 8, 2, stride=2)
        self.u1 = block(16, 4, "reflect")
        self.seq = nn.Conv1d(4, 2, 4, padding="same", padding_mode="reflect")
    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        b = F.relu(self.mid(b))
        u = self.u1(torch.cat([self.up(b), a], 1))
        return self.seq(u.flatten(2))
def make():
    return M(), (torch.randn(2, 3, 8, 8),)
