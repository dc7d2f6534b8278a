"""Issue 15, second round: an attention GRU decoder in training, as users write it: nn.GRUCell
called in a Python loop over time steps (one module, four calls), additive attention over the
encoder states, the output projection tied to the embedding (out.weight = emb.weight), a loss
summed over the steps. Every parameter is read several times: its gradient is the sum over all
uses."""
import torch
import torch.nn.functional as F
from torch import nn
NAME = "real2_decoder"
TRAIN = True
class M(nn.Module):
    def __init__(self, V=15, H=12):
        super().__init__()
        self.emb = nn.Embedding(V, H)
        self.cell = nn.GRUCell(H, H)
        self.attn = nn.Linear(2 * H, 1, bias=False)  # a bias would cancel in the softmax (gradient exactly 0)
        self.mix = nn.Linear(2 * H, H)
        self.out = nn.Linear(H, V)
        self.out.weight = self.emb.weight
    def forward(self, enc, tgt):
        h = enc.mean(1)
        loss = 0.0
        for t in range(4):
            h = self.cell(self.emb(tgt[:, t]), h)
            score = self.attn(torch.cat([enc, h.unsqueeze(1).expand_as(enc)], -1)).squeeze(-1)
            ctx = torch.bmm(score.softmax(-1).unsqueeze(1), enc).squeeze(1)
            loss = loss + F.cross_entropy(self.out(torch.tanh(self.mix(torch.cat([h, ctx], -1)))), tgt[:, t + 1])
        return loss / 4
def make():
    return M(), (torch.randn(2, 6, 12), torch.randint(0, 15, (2, 5)))
