"""nn.LSTM(num_layers=2, dropout=0.2) in training: the exporter writes the trace, `gcdbg run` refuses it."""
import torch
import torch.nn as nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 16, num_layers=2, batch_first=True, dropout=0.2)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out.sum()


def make():
    return M(), (torch.randn(2, 5, 8),)
