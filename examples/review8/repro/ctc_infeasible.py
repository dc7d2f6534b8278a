"""F.ctc_loss(zero_infinity=True) with one utterance whose target cannot be aligned (target 12
symbols with repeats, only 8 frames after subsampling): PyTorch zeroes that sample's loss and
gradient. A BiGRU-free CTC head: Conv1d subsampling + Linear + log_softmax."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r8_ctc_infeasible"
TRAIN = True
B, T_IN, FEAT, V = 3, 64, 20, 6


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(FEAT, 32, 3, stride=2, padding=1)
        self.out = nn.Linear(32, V)

    def forward(self, x, in_lens, tgt, tgt_lens):
        h = F.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)  # (B, T/2, 32)
        logp = self.out(h).log_softmax(-1).transpose(0, 1)         # (T, B, V)
        lens = torch.div(in_lens + 1, 2, rounding_mode="floor")
        return F.ctc_loss(logp, tgt, lens, tgt_lens, blank=0, reduction="mean", zero_infinity=True)


def make():
    x = torch.randn(B, T_IN, FEAT)
    in_lens = torch.tensor([64, 50, 16])   # 32, 25, 8 frames
    tgt = torch.randint(1, V, (B, 12))
    tgt[2, 1] = tgt[2, 0]                  # a repeat needs a blank between: 13+ frames for sample 2
    tgt_lens = torch.tensor([10, 12, 12])
    return M(), (x, in_lens, tgt, tgt_lens)
