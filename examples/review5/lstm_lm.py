"""A word-level LSTM language model step the way a new user writes it, in training:
nn.Embedding(5000, 256) over B32 x T32 tokens, Dropout, a single-layer nn.LSTM(256 -> 512,
batch_first), Dropout, a Linear(512 -> 5000) decoder per time step and cross_entropy against the
next tokens. The backward pass recomputes the 32 steps' gates from the saved activations: the
elementwise fusion of those recomputations used to grow into one kernel reading ~300 buffers,
which gcc did not vectorize (docs/performance.md, "Long kernels: inline math, a cap on
streams").
B32, T32, vocab 5000, hidden 512: logits 32 x 32 x 5000 (20.5 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "lstm_lm"
TRAIN = True

B, T, V, E, H = 32, 32, 5000, 256, 512


class LSTMLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.drop_in = nn.Dropout(0.2)
        self.lstm = nn.LSTM(E, H, batch_first=True)
        self.drop_out = nn.Dropout(0.2)
        self.decoder = nn.Linear(H, V)

    def forward(self, tokens, targets):
        x = self.drop_in(self.emb(tokens))                   # B, T, E
        out, _ = self.lstm(x)                                # B, T, H
        logits = self.decoder(self.drop_out(out))            # B, T, V
        loss = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))
        return loss, logits


def make():
    seq = torch.randint(0, V, (B, T + 1))
    return LSTMLM(), (seq[:, :-1], seq[:, 1:])
