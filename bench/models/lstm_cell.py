"""One LSTM step of a 2-layer LSTM language model at batch 20, hidden 512 (4 gates: the
cell's two matmuls are 20x512 @ 512x2048, each with a bias add); inference."""
import torch
import torch.nn as nn

NAME = "lstm_cell"


class Cell(nn.Module):
    def __init__(self, n=512):
        super().__init__()
        self.ih = nn.Linear(n, 4 * n)
        self.hh = nn.Linear(n, 4 * n)

    def forward(self, x, h, c):
        gates = self.ih(x) + self.hh(h)
        i, f, g, o = gates.chunk(4, 1)
        c2 = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h2 = torch.sigmoid(o) * torch.tanh(c2)
        return h2, c2


def make():
    return Cell().eval(), (torch.randn(20, 512), torch.randn(20, 512), torch.randn(20, 512))
