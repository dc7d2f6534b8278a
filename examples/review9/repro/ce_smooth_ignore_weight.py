"""Cross entropy variants LM and classification code combines: label_smoothing with
ignore_index (padding targets), and label_smoothing with class weights (PyTorch 1.13 weighs the
smoothing term by the class weights too), on 3-d logits (B, C, T) and 2-d logits."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r9_ce_smooth_ignore_weight"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 7)
        self.register_buffer("w", torch.tensor([1.0, 0.5, 2.0, 1.0, 3.0, 0.25, 1.0]))

    def forward(self, h, tgt, y):
        logits = self.proj(h)                                       # B x T x 7
        a = F.cross_entropy(logits.transpose(1, 2), tgt, ignore_index=-100, label_smoothing=0.1)
        b = F.cross_entropy(logits[:, 0], y, weight=self.w, label_smoothing=0.2)
        c = F.cross_entropy(logits.reshape(-1, 7), tgt.reshape(-1), weight=self.w, ignore_index=-100,
                            label_smoothing=0.05, reduction="sum")
        return a, b, c


def make():
    tgt = torch.randint(0, 7, (4, 9))
    tgt[:, 6:] = -100
    return M(), (torch.randn(4, 9, 16), tgt, torch.randint(0, 7, (4,)))
