"""Speech recognizer (DeepSpeech2 / CRNN style) trained with CTC: log-mel features B16 x 1 x 80 x T320,
two Conv2d(3x3) + BatchNorm2d + Hardtanh(0, 20) front-end layers (the first stride 2 in both axes),
`x.permute(0, 3, 1, 2).flatten(2)` to frames, Linear projection, a 2-layer bidirectional
nn.LSTM(batch_first) over 160 frames, Dropout, Linear to 29 characters (blank = 0),
log_softmax, `.transpose(0, 1)` to T x B x C, and F.ctc_loss(reduction="mean", zero_infinity=True)
with per-utterance input lengths ((len - 1) // 2 + 1, computed as users do) and padded targets
(B x S with target lengths). The first conv's output is 16 x 32 x 40 x 160 (13 MB), its input to
BN 26 MB at stride 1 in the second layer."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "crnn_ctc"
TRAIN = True

N_MELS, T, B, S, VOCAB, C, H = 80, 320, 16, 40, 29, 32, 128


class ASR(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, C, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(C), nn.Hardtanh(0, 20, inplace=True),
            nn.Conv2d(C, C, 3, padding=1, bias=False), nn.BatchNorm2d(C), nn.Hardtanh(0, 20, inplace=True))
        self.proj = nn.Linear(C * (N_MELS // 2), 2 * H)
        self.rnn = nn.LSTM(2 * H, H, num_layers=2, batch_first=True, bidirectional=True)
        self.drop = nn.Dropout(0.1)
        self.fc = nn.Linear(2 * H, VOCAB)

    def forward(self, feats, feat_lens, targets, target_lens):
        x = self.conv(feats)                       # B, C, F/2, T/2
        x = x.permute(0, 3, 1, 2).flatten(2)       # B, T/2, C*F/2
        x = self.proj(x)
        x, _ = self.rnn(x)
        logits = self.fc(self.drop(x))             # B, T', V
        log_probs = logits.log_softmax(-1).transpose(0, 1)  # T', B, V
        out_lens = (feat_lens - 1) // 2 + 1
        loss = F.ctc_loss(log_probs, targets, out_lens, target_lens, blank=0,
                          reduction="mean", zero_infinity=True)
        return loss, log_probs


def make():
    torch.manual_seed(0)
    feats = torch.randn(B, 1, N_MELS, T)
    feat_lens = torch.randint(T // 2, T + 1, (B,))
    feat_lens[0] = T
    target_lens = torch.randint(S // 2, S + 1, (B,))
    targets = torch.randint(1, VOCAB, (B, S))
    return ASR(), (feats, feat_lens, targets, target_lens)
