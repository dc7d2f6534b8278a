"""F.ctc_loss with the default zero_infinity=False and one utterance whose target cannot be aligned
(12 symbols with a repeat, only 8 frames): PyTorch's loss is inf and its gradients are NaN (the
infeasible sample's log_probs grad rows are NaN, and the mean spreads them to every parameter).
gcdbg's loss is inf too, but its gradients are finite: exactly PyTorch's zero_infinity=True
gradients (conv.weight[0,0,0] -0.0029640384 vs zero_infinity's -0.0029640286). `gcdbg run` reports
MISMATCH [NaN/Inf at other positions] vs PyTorch on all 4 grads; eager and compiled agree, so the
difference is in gcdbg's ctc_loss decomposition/derivative, not the C back end. ctc_infeasible.py
is the zero_infinity=True twin, which matches."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r8_ctc_inf_nozero"
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
        return F.ctc_loss(logp, tgt, lens, tgt_lens, blank=0, reduction="mean")


def make():
    x = torch.randn(B, T_IN, FEAT)
    in_lens = torch.tensor([64, 50, 16])   # 32, 25, 8 frames
    tgt = torch.randint(1, V, (B, 12))
    tgt[2, 1] = tgt[2, 0]                  # a repeat needs a blank between: 13+ frames for sample 2
    tgt_lens = torch.tensor([10, 12, 12])
    return M(), (x, in_lens, tgt, tgt_lens)
