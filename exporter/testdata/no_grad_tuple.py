"""A tuple returned inside a no-grad block (an LSTM's (out, state)) and indexed outside it: the
items are detached. With NO_GRAD_TUPLE_WHOLE=1, the tuple is returned whole:
refused, saying to unpack it inside the block."""
import os

import torch
import torch.nn as nn

TRAIN = True
WHOLE = bool(os.environ.get("NO_GRAD_TUPLE_WHOLE"))


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 4, batch_first=True)
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        with torch.no_grad():
            r = self.rnn(x)
            s = torch.chunk(self.fc(x), 2, dim=1)
        if WHOLE:
            return s
        return (self.fc(x) * r[0]).sum() + s[1].mean()


def make():
    return M(), (torch.randn(2, 4, 4),)
