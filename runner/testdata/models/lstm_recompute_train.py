# A word-level LSTM language model over 32 tokens, in training (a small examples/review5/lstm_lm.py):
# the backward recomputes every step's gates (sigmoid, tanh) from the saved pre-activations. Fused
# whole, those 32 steps were one kernel of ~250 buffers with 64 tanh calls, which gcc's inliner left
# partly uninlined (--param large-function-growth), so its loop was not vectorized; now the inline
# math is always_inline and the scheduler caps a kernel's streams (sched/stream_cap.go). The
# kernels' loops are checked vectorized (compiler) and the values against PyTorch's (runner).
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/lstm_recompute_train.py \
#         -o runner/testdata/lstm_recompute_train.json --seed 0 --runs 0
import torch
import torch.nn.functional as F
from torch import nn

NAME = "lstm_recompute_train"
TRAIN = True

B, T, V, E, H = 4, 32, 40, 8, 16


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.lstm = nn.LSTM(E, H, batch_first=True)
        self.decoder = nn.Linear(H, V)

    def forward(self, tokens, targets):
        out, _ = self.lstm(self.emb(tokens))
        return F.cross_entropy(self.decoder(out).reshape(-1, V), targets.reshape(-1))


def make():
    seq = torch.randint(0, V, (B, T + 1))
    return M(), (seq[:, :-1], seq[:, 1:])
