"""Issue 15, second round: a 2-layer LSTM language model (Embedding, Dropout, batch_first LSTM,
cross-entropy) in training, returning the loss and the final (h_n, c_n); a second LSTM runs
time-major from a given (h_0, c_0), and an unbatched RNN(relu) runs on one sequence."""
import torch
import torch.nn.functional as F
from torch import nn
NAME = "real2_lstm"
TRAIN = True
class M(nn.Module):
    def __init__(self, V=30, E=8, H=12):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.drop = nn.Dropout(0.2)
        self.lstm = nn.LSTM(E, H, num_layers=2, batch_first=True)
        self.lstm2 = nn.LSTM(H, H)
        self.rnn = nn.RNN(H, 6, nonlinearity="relu", bias=False)
        self.head = nn.Linear(H, V)
    def forward(self, idx, tgt):
        x = self.drop(self.emb(idx))
        out, (h, c) = self.lstm(x)
        out2, (h2, c2) = self.lstm2(out.transpose(0, 1), (h[1:], c[1:]))
        r, hr = self.rnn(out2[:, 0])
        logits = self.head(self.drop(out2))
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.transpose(0, 1).reshape(-1))
        return loss, h, c2, r.sum() + hr.sum()
def make():
    return M(), (torch.randint(0, 30, (3, 5)), torch.randint(0, 30, (3, 5)))
