"""Issue 15, second round: a GRU seq2seq in training: bidirectional 2-layer encoder (eval-mode
dropout is not involved: dropout=0), a bridge from its final states, a decoder GRU started
from that state, cross-entropy with label smoothing over [N, C, T] logits."""
import torch
import torch.nn.functional as F
from torch import nn
NAME = "real2_gru"
TRAIN = True
class M(nn.Module):
    def __init__(self, V=20, E=8, H=10):
        super().__init__()
        self.src_emb = nn.Embedding(V, E)
        self.tgt_emb = nn.Embedding(V, E)
        self.enc = nn.GRU(E, H, num_layers=2, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * H, H)
        self.dec = nn.GRU(E, H, batch_first=True)
        self.out = nn.Linear(H, V)
    def forward(self, src, tgt_in, tgt_out):
        enc_out, h = self.enc(self.src_emb(src))
        h0 = torch.tanh(self.bridge(torch.cat([h[-2], h[-1]], -1))).unsqueeze(0)
        dec_out, hd = self.dec(self.tgt_emb(tgt_in), h0)
        logits = self.out(dec_out + enc_out[:, -1:, :10])
        return F.cross_entropy(logits.transpose(1, 2), tgt_out, label_smoothing=0.1), hd
def make():
    return M(), (torch.randint(0, 20, (2, 6)), torch.randint(0, 20, (2, 4)), torch.randint(0, 20, (2, 4)))
