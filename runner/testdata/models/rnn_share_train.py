# An LSTM cell unrolled over 12 steps with a linear head, in training: each step renders the same
# kernels with other buffers (the gates' GEMMs with their choices, the cell's pointwise update), which
# share one C function per code (render/kernel_share.go). Values and grads against PyTorch.
import torch
from torch import nn

NAME = "rnn_share_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(24, 32)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        h = x.new_zeros(x.size(0), 32)
        c = x.new_zeros(x.size(0), 32)
        outs = []
        for t in range(12):
            h, c = self.cell(x[:, t], (h, c))
            outs.append(self.head(h))
        return torch.stack(outs, 1).logsumexp(-1).mean()


def make():
    torch.manual_seed(0)
    return M(), (torch.randn(6, 12, 24),)
