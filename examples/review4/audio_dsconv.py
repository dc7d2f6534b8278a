"""QuartzNet/ConvTasNet-style 1-D audio classifier in training: a log-mel B16 x 64 x T800 input
with SpecAugment-style time and frequency masks given as bool inputs (masked_fill with 0), a
strided Conv1d stem, then 4 residual blocks of depthwise separable convolutions
(Conv1d(C, C, 9, groups=C, padding=4) depthwise, Conv1d(C, C, 1) pointwise), each followed by
a channels-last LayerNorm (x.transpose(1, 2) -> nn.LayerNorm(C) -> transpose back), GELU and
Dropout; the block's second half is dilated (dilation 2, padding 8); global average pooling
over time with x.mean(-1), Linear to 30 classes, cross_entropy with label_smoothing=0.05.
B16, C=128, 400 frames after the stem: each block tensor 16 x 128 x 400 (3.3 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "audio_dsconv"
TRAIN = True

B, MELS, T, C, CLASSES = 16, 64, 800, 128, 30


class ChannelLayerNorm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln = nn.LayerNorm(c)

    def forward(self, x):            # B, C, T
        return self.ln(x.transpose(1, 2)).transpose(1, 2)


class DSConv(nn.Module):
    def __init__(self, c, k, dilation):
        super().__init__()
        self.dw = nn.Conv1d(c, c, k, padding=dilation * (k - 1) // 2, dilation=dilation, groups=c, bias=False)
        self.pw = nn.Conv1d(c, c, 1)
        self.norm = ChannelLayerNorm(c)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(F.gelu(self.norm(self.pw(self.dw(x)))))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = DSConv(c, 9, 1)
        self.b = DSConv(c, 9, 2)

    def forward(self, x):
        return x + self.b(self.a(x))


class AudioNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv1d(MELS, C, 11, stride=2, padding=5), ChannelLayerNorm(C), nn.GELU())
        self.blocks = nn.Sequential(*[Block(C) for _ in range(4)])
        self.fc = nn.Linear(C, CLASSES)

    def forward(self, mel, time_mask, freq_mask, labels):
        mel = mel.masked_fill(time_mask[:, None, :], 0.0).masked_fill(freq_mask[:, :, None], 0.0)
        x = self.blocks(self.stem(mel))
        logits = self.fc(x.mean(-1))
        return F.cross_entropy(logits, labels, label_smoothing=0.05), logits


def make():
    mel = torch.randn(B, MELS, T)
    t = torch.arange(T)[None, :]
    t0 = torch.randint(0, T - 80, (B, 1))
    time_mask = (t >= t0) & (t < t0 + torch.randint(0, 80, (B, 1)))
    f = torch.arange(MELS)[None, :]
    f0 = torch.randint(0, MELS - 10, (B, 1))
    freq_mask = (f >= f0) & (f < f0 + torch.randint(0, 10, (B, 1)))
    labels = torch.randint(0, CLASSES, (B,))
    return AudioNet(), (mel, time_mask, freq_mask, labels)
