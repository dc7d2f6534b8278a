import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 8, batch_first=True, bidirectional=True)
    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        h, _ = pad_packed_sequence(self.rnn(packed)[0], batch_first=True, total_length=x.size(1))
        return h.sum()
def make():
    return M(), (torch.randn(3, 5, 4), torch.tensor([5, 2, 3]))
