"""A sequence classifier/tagger the way a new user writes it: nn.LSTM(128 -> 256, 2 layers,
batch_first) over B32 x T24, a Linear head per time step and cross-entropy; training.
The unrolled LSTM is many small, near-identical kernels per time step, so this model
measures how compile time grows with T: GCDBG_LSTM_T=48 (or 96) exports a longer sequence."""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "lstm_train"
TRAIN = True
B, T, I, H, C = 32, int(os.environ.get("GCDBG_LSTM_T", "24")), 128, 256, 10


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(I, H, num_layers=2, batch_first=True)
        self.head = nn.Linear(H, C)

    def forward(self, x, y):
        out, _ = self.lstm(x)
        logits = self.head(out)
        return F.cross_entropy(logits.reshape(-1, C), y.reshape(-1))


def make():
    return Tagger(), (torch.randn(B, T, I), torch.randint(0, C, (B, T)))
