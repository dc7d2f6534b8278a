"""`gcdbg bench` cannot rebuild nn.LSTM / nn.GRU for its live PyTorch timing (their __init__ takes
*args, **kwargs) and silently-ish falls back to the export-time recorded time."""
import torch
import torch.nn as nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(32, 64, batch_first=True)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out.pow(2).mean()


def make():
    return M(), (torch.randn(8, 16, 32),)
