"""Keyword-spotting style 1-D audio classifier in training: log-mel features B16 x 80 x T200
padded to the longest clip with per-clip lengths; the padded frames are zeroed, a Conv1d front
end (stride 2, then dilation 2 and 4) with BatchNorm1d and ReLU, a residual add, a bidirectional
nn.GRU(batch_first) over the frames, temporal attention pooling (a small MLP scores each frame,
padded frames masked_fill'ed with -inf before the softmax) concatenated with a masked mean over the
valid frames, Dropout, Linear to 35 keywords, cross-entropy. Lengths after the stride-2 conv are
computed the way users do: (len - 1) // 2 + 1."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "kws_gru"
TRAIN = True

N_MELS, T, CLASSES, C, H = 80, 200, 35, 128, 96


class ConvBN(nn.Module):
    def __init__(self, cin, cout, k, stride=1, dilation=1):
        super().__init__()
        pad = dilation * (k - 1) // 2
        self.conv = nn.Conv1d(cin, cout, k, stride=stride, padding=pad, dilation=dilation, bias=False)
        self.bn = nn.BatchNorm1d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class KWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.front = ConvBN(N_MELS, C, 5, stride=2)
        self.res1 = ConvBN(C, C, 3, dilation=2)
        self.res2 = ConvBN(C, C, 3, dilation=4)
        self.gru = nn.GRU(C, H, batch_first=True, bidirectional=True)
        self.att = nn.Sequential(nn.Linear(2 * H, 64), nn.Tanh(), nn.Linear(64, 1))
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(4 * H, CLASSES)

    def forward(self, feats, lengths, labels):
        # feats: B, n_mels, T (padded); lengths: B (int64)
        t = torch.arange(feats.size(2), device=feats.device)
        in_mask = t[None, :] < lengths[:, None]
        feats = feats * in_mask.unsqueeze(1)
        x = self.front(feats)                      # B, C, T/2
        x = x + self.res2(self.res1(x))
        out_len = (lengths - 1) // 2 + 1
        mask = torch.arange(x.size(2), device=x.device)[None, :] < out_len[:, None]   # B, T'
        h, _ = self.gru(x.transpose(1, 2))         # B, T', 2H
        scores = self.att(h).squeeze(-1)
        scores = scores.masked_fill(~mask, float("-inf"))
        w = torch.softmax(scores, dim=1)
        att_pool = torch.bmm(w.unsqueeze(1), h).squeeze(1)
        m = mask.unsqueeze(-1).type_as(h)
        mean_pool = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        z = self.drop(torch.cat([att_pool, mean_pool], dim=-1))
        logits = self.fc(z)
        return F.cross_entropy(logits, labels), logits


def make():
    B = 16
    lengths = torch.randint(120, T + 1, (B,))
    lengths[0] = T
    feats = torch.randn(B, N_MELS, T)
    labels = torch.randint(0, CLASSES, (B,))
    return KWS(), (feats, lengths, labels)
