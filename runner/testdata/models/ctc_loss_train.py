# F.ctc_loss in training through gcdbg's unrolled alpha recursion: log_softmax of a Linear over
# frames, (T, N, C) log-probs, targets padded to (N, S) with -1 past each target length,
# per-sequence input lengths (one full, one shorter), a repeated label (3, 3: needs a blank
# between), an empty target, and one sequence too short for its target (no alignment: inf,
# zero_infinity=True makes it 0 with no gradient). Three reductions: mean (divided by target
# length), sum with blank = C - 1 through the nn.CTCLoss module, and none (the infeasible
# sequence's inf kept, not trained; its lengths given as a Python list and a tuple).
import torch
from torch import nn
import torch.nn.functional as F

NAME = "ctc_loss_train"
TRAIN = True
T, N, D, C, S = 12, 5, 8, 6, 4


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(D, C)
        self.ctc_sum = nn.CTCLoss(blank=C - 1, reduction="sum", zero_infinity=True)

    def forward(self, x, targets, in_lens, tgt_lens, targets2):
        lp = self.fc(x).log_softmax(-1).transpose(0, 1)          # T, N, C
        mean = F.ctc_loss(lp, targets, in_lens, tgt_lens, zero_infinity=True)
        summed = self.ctc_sum(lp, targets2, in_lens, tgt_lens)
        per = F.ctc_loss(lp, targets, [12, 9, 4, 3, 12], (4, 3, 0, 4, 4), reduction="none")
        return mean + 0.1 * summed, per.detach()


def make():
    torch.manual_seed(0)
    x = torch.randn(N, T, D)
    targets = torch.tensor([[1, 2, 3, 4], [3, 3, 1, -1], [2, -1, -1, -1], [5, 4, 5, 4], [1, 2, 1, 2]])
    in_lens = torch.tensor([12, 9, 4, 3, 12])
    tgt_lens = torch.tensor([4, 3, 0, 4, 4])
    targets2 = torch.where(targets == 5, torch.zeros_like(targets), targets)
    targets2 = torch.where(targets2 < 0, torch.full_like(targets2, -1), targets2)
    return M(), (x, targets, in_lens, tgt_lens, targets2)
