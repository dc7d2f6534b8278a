"""The usual way to feed a padded batch to an LSTM: pack_padded_sequence(lengths) ->
nn.LSTM -> pad_packed_sequence, last hidden states of both directions -> Linear -> CE."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

NAME = "r9_lstm_packed"
TRAIN = True
B, T, V, E, H, NC = 8, 16, 100, 16, 16, 3


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E, padding_idx=0)
        self.lstm = nn.LSTM(E, H, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * H, NC)

    def forward(self, tokens, lengths, y):
        packed = pack_padded_sequence(self.emb(tokens), lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.lstm(packed)
        feat = torch.cat([h[-2], h[-1]], dim=1)
        return F.cross_entropy(self.fc(feat), y)


def make():
    lengths = torch.randint(4, T + 1, (B,))
    tokens = torch.randint(1, V, (B, T)).masked_fill(torch.arange(T)[None] >= lengths[:, None], 0)
    return M(), (tokens, lengths, torch.randint(0, NC, (B,)))
