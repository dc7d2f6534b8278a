"""Word-level LSTM language model (the PyTorch word_language_model example, small): Embedding,
2-layer nn.LSTM (batch_first, dropout between layers), Dropout, Linear decoder, cross-entropy;
plus a hand-written GRU cell unrolled over 4 steps as an auxiliary head. Training, B8 x T24."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "lstm_lm"
TRAIN = True
V, E, H, T, B = 1000, 64, 128, 24, 8


class GRUCell(nn.Module):
    def __init__(self, inp, hid):
        super().__init__()
        self.x2h = nn.Linear(inp, 3 * hid)
        self.h2h = nn.Linear(hid, 3 * hid)

    def forward(self, x, h):
        xr, xz, xn = self.x2h(x).chunk(3, dim=-1)
        hr, hz, hn = self.h2h(h).chunk(3, dim=-1)
        r = torch.sigmoid(xr + hr)
        z = torch.sigmoid(xz + hz)
        n = torch.tanh(xn + r * hn)
        return (1 - z) * n + z * h


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.drop = nn.Dropout(0.2)
        # nn.LSTM(E, H, num_layers=2, dropout=0.2) is refused by `gcdbg run` (inter-layer dropout
        # draws are not recorded); its own hint: two single-layer LSTMs with an nn.Dropout between
        self.rnn1 = nn.LSTM(E, H, batch_first=True)
        self.rnn2 = nn.LSTM(H, H, batch_first=True)
        self.dec = nn.Linear(H, V)
        self.gru = GRUCell(H, 32)
        self.aux = nn.Linear(32, 2)

    def forward(self, tokens, targets, h0, c0, cls):
        x = self.drop(self.emb(tokens))
        o1, (h1, c1) = self.rnn1(x, (h0[:1], c0[:1]))
        out, (h2, c2) = self.rnn2(self.drop(o1), (h0[1:], c0[1:]))
        hn, cn = torch.cat([h1, h2]), torch.cat([c1, c2])
        logits = self.dec(self.drop(out))
        loss = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))
        # auxiliary sentence classifier: GRU cell over the last 4 LSTM outputs
        # torch.zeros(out.shape[0], 32) is refused by fx (symbolic size): constant batch
        h = torch.zeros(B, 32)
        for t in range(4):
            h = self.gru(out[:, T - 4 + t], h)
        aux = F.cross_entropy(self.aux(h), cls)
        return loss + 0.1 * aux, hn.detach(), cn.detach()


def make():
    tokens = torch.randint(0, V, (B, T))
    targets = torch.randint(0, V, (B, T))
    h0 = torch.zeros(2, B, H)
    c0 = torch.zeros(2, B, H)
    cls = torch.randint(0, 2, (B,))
    return LM(), (tokens, targets, h0, c0, cls)
