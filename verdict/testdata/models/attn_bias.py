"""One step of an attention GRU decoder (Bahdanau attention) in training.
32 attention heads score every encoder position: v = Linear(64, 32, bias=True)
on tanh(W [h; enc_t]); its output goes straight into a softmax over the
encoder positions (dim 1), and v.bias[k] is added to every position of head
k alike. Softmax is shift-invariant, so the gradient of the loss with
respect to v.bias is exactly zero: each element a sum of per-position terms
that cancel. PyTorch's float32 value is the rounding
noise of that sum (~1e-8), gcdbg's float64 reference ~1e-17. The verdict
must call that a match (user report: it was a MISMATCH)."""
import torch

NAME = "attn_bias"


class Decoder(torch.nn.Module):
    def __init__(self, hidden=64, heads=32, vocab=48):
        super().__init__()
        self.attn = torch.nn.Linear(2 * hidden, hidden)
        self.v = torch.nn.Linear(hidden, heads, bias=True)
        self.val = torch.nn.Linear(hidden, heads)
        self.gru = torch.nn.GRUCell(hidden + heads, hidden)
        self.out = torch.nn.Linear(hidden, vocab)

    def forward(self, emb, h, enc, target):
        # emb, h: (B, H); enc: (B, T, H)
        T = enc.shape[1]
        hq = h.unsqueeze(1).expand(-1, T, -1)
        energy = torch.tanh(self.attn(torch.cat([hq, enc], dim=-1)))
        scores = self.v(energy)                      # (B, T, heads)
        a = torch.softmax(scores, dim=1)             # over the positions
        ctx = (a * self.val(enc)).sum(dim=1)         # weighted sum, (B, heads)
        h2 = self.gru(torch.cat([emb, ctx], dim=-1), h)
        logits = self.out(h2)
        return torch.nn.functional.cross_entropy(logits, target, reduction="sum")


def make():
    m = Decoder()
    B, T, H = 32, 128, 64
    return {"model": m, "train": True,
            "inputs": (torch.randn(B, H), torch.randn(B, H), torch.randn(B, T, H),
                       torch.randint(0, 48, (B,)))}
