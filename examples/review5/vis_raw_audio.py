"""A raw-waveform audio tagger (SampleCNN / M5 style) in training: 1 s of 16 kHz audio per
clip, a framing stem Conv1d(1, 64, 80, stride=4) after F.pad(reflect), then blocks of
[F.pad(x, (1, 1), mode="reflect") -> Conv1d(k=3) -> BatchNorm1d -> ReLU -> AvgPool1d(4)]
with Squeeze-Excitation on the channels (x.mean(-1) -> Linear -> ReLU -> Linear -> sigmoid),
then global AdaptiveMaxPool1d(1) concatenated with AdaptiveAvgPool1d(1), Dropout, a Linear to
50 tags and multi-label binary_cross_entropy_with_logits(pos_weight=...) as for AudioSet/MTAT.
B32 x 1 x 16000; stem output 32 x 64 x 3981 (32.6 MB), first block 32 x 64 x 995 (8.2 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "vis_raw_audio"
TRAIN = True

B, N, TAGS = 32, 16000, 50


class SE1d(nn.Module):
    def __init__(self, c, r=8):
        super().__init__()
        self.fc1 = nn.Linear(c, c // r)
        self.fc2 = nn.Linear(c // r, c)

    def forward(self, x):
        s = torch.sigmoid(self.fc2(F.relu(self.fc1(x.mean(-1)))))
        return x * s.unsqueeze(-1)


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, 3)
        self.bn = nn.BatchNorm1d(cout)
        self.pool = nn.AvgPool1d(4)
        self.se = SE1d(cout)

    def forward(self, x):
        x = F.pad(x, (1, 1), mode="reflect")
        return self.se(self.pool(F.relu(self.bn(self.conv(x)))))


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv1d(1, 64, 80, stride=4)
        self.bn0 = nn.BatchNorm1d(64)
        self.blocks = nn.Sequential(Block(64, 64), Block(64, 128), Block(128, 128), Block(128, 256))
        self.maxp = nn.AdaptiveMaxPool1d(1)
        self.avgp = nn.AdaptiveAvgPool1d(1)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(512, TAGS)
        self.register_buffer("pos_weight", torch.linspace(1.0, 4.0, TAGS))

    def forward(self, wav, tags):
        x = F.pad(wav, (38, 38), mode="reflect")
        x = F.relu(self.bn0(self.stem(x)))
        x = self.blocks(x)
        x = torch.cat([self.maxp(x), self.avgp(x)], 1).flatten(1)
        logits = self.fc(self.drop(x))
        return F.binary_cross_entropy_with_logits(logits, tags, pos_weight=self.pos_weight), logits


def make():
    wav = 0.1 * torch.randn(B, 1, N)
    tags = (torch.rand(B, TAGS) < 0.1).float()
    return Tagger(), (wav, tags)
