"""A Conformer-S slice for speech recognition in training, written after torchaudio.models.Conformer
and the ESPnet Conv2dSubsampling: Conv2d(3, stride 2) + ReLU twice over log-mel frames, Linear to
d_model 144, then two Conformer blocks, each: half-step FeedForward (LayerNorm, Linear, SiLU, Dropout,
Linear, Dropout, x0.5 residual), LayerNorm + nn.MultiheadAttention(4 heads) with a key_padding_mask
from the utterance lengths + Dropout, the convolution module (LayerNorm, pointwise Conv1d to 2d,
GLU(dim=1), depthwise Conv1d(k=31, groups=d), BatchNorm1d, SiLU, pointwise Conv1d, Dropout), a second
half-step FeedForward and a final LayerNorm; Linear to 32 symbols, log_softmax, F.ctc_loss
(blank 0, zero_infinity=True) against variable-length targets.
B4 x 400 frames x 80 mels: first conv map 4 x 64 x 199 x 39 (8 MB), blocks 4 x 99 x 144, FFN hidden
4 x 99 x 576."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r8_conformer_ctc"
TRAIN = True
B, T_IN, MELS, D, HEADS, FFN, KS, VOCAB, SUB_CH = 4, 400, 80, 144, 4, 576, 31, 32, 64


class Conv2dSubsampling(nn.Module):
    def __init__(self, idim, odim, ch):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, ch, 3, 2), nn.ReLU(), nn.Conv2d(ch, ch, 3, 2), nn.ReLU())
        self.out = nn.Linear(ch * (((idim - 1) // 2 - 1) // 2), odim)

    def forward(self, x, lengths):
        x = x.unsqueeze(1)  # (b, 1, t, f)
        x = self.conv(x)
        b, c, t, f = x.size()
        x = self.out(x.transpose(1, 2).contiguous().view(b, t, c * f))
        lengths = torch.div(torch.div(lengths - 1, 2, rounding_mode="floor") - 1, 2, rounding_mode="floor")
        return x, lengths


class FeedForwardModule(nn.Module):
    def __init__(self, d, hidden, dropout):
        super().__init__()
        self.sequential = nn.Sequential(
            nn.LayerNorm(d), nn.Linear(d, hidden, bias=True), nn.SiLU(), nn.Dropout(dropout),
            nn.Linear(hidden, d, bias=True), nn.Dropout(dropout))

    def forward(self, x):
        return self.sequential(x)


class ConvolutionModule(nn.Module):
    def __init__(self, d, ks, dropout):
        super().__init__()
        self.layer_norm = nn.LayerNorm(d)
        self.sequential = nn.Sequential(
            nn.Conv1d(d, 2 * d, 1, stride=1, padding=0, bias=True),
            nn.GLU(dim=1),
            nn.Conv1d(d, d, ks, stride=1, padding=(ks - 1) // 2, groups=d, bias=True),
            nn.BatchNorm1d(d),
            nn.SiLU(),
            nn.Conv1d(d, d, 1, stride=1, padding=0, bias=True),
            nn.Dropout(dropout))

    def forward(self, x):
        x = self.layer_norm(x)
        x = x.transpose(1, 2)
        x = self.sequential(x)
        return x.transpose(1, 2)


class ConformerLayer(nn.Module):
    def __init__(self, d, ffn, heads, ks, dropout=0.1):
        super().__init__()
        self.ffn1 = FeedForwardModule(d, ffn, dropout)
        self.self_attn_layer_norm = nn.LayerNorm(d)
        self.self_attn = nn.MultiheadAttention(d, heads, dropout=dropout)
        self.self_attn_dropout = nn.Dropout(dropout)
        self.conv_module = ConvolutionModule(d, ks, dropout)
        self.ffn2 = FeedForwardModule(d, ffn, dropout)
        self.final_layer_norm = nn.LayerNorm(d)

    def forward(self, x, key_padding_mask):
        # x: (T, B, D) as torchaudio's Conformer layers
        residual = x
        x = self.ffn1(x)
        x = x * 0.5 + residual
        residual = x
        x = self.self_attn_layer_norm(x)
        x, _ = self.self_attn(query=x, key=x, value=x, key_padding_mask=key_padding_mask, need_weights=False)
        x = self.self_attn_dropout(x)
        x = x + residual
        residual = x
        x = x.transpose(0, 1)
        x = self.conv_module(x)
        x = x.transpose(0, 1)
        x = residual + x
        residual = x
        x = self.ffn2(x)
        x = x * 0.5 + residual
        x = self.final_layer_norm(x)
        return x


class ConformerCTC(nn.Module):
    def __init__(self):
        super().__init__()
        self.subsample = Conv2dSubsampling(MELS, D, SUB_CH)
        self.dropout = nn.Dropout(0.1)
        self.layers = nn.ModuleList([ConformerLayer(D, FFN, HEADS, KS) for _ in range(2)])
        self.out = nn.Linear(D, VOCAB)

    def forward(self, feats, feat_lens, targets, target_lens):
        x, lens = self.subsample(feats, feat_lens)
        x = self.dropout(x)
        t = x.size(1)
        pad = torch.arange(t, device=x.device)[None, :] >= lens[:, None]
        x = x.transpose(0, 1)
        for layer in self.layers:
            x = layer(x, pad)
        logp = self.out(x).log_softmax(dim=-1)  # (T, B, V)
        return F.ctc_loss(logp, targets, lens, target_lens, blank=0, reduction="mean", zero_infinity=True)


def make():
    feats = torch.randn(B, T_IN, MELS)
    feat_lens = torch.tensor([400, 372, 340, 301])
    target_lens = torch.tensor([30, 25, 28, 20])
    targets = torch.randint(1, VOCAB, (B, 30))
    return ConformerCTC().train(), (feats, feat_lens, targets, target_lens)
