"""Two tensor attributes users pass on: nanoGPT's positions
torch.arange(0, t, dtype=torch.long, device=idx.device) (and x.to(idx.device)),
and a padding mask converted to the activations' dtype, mask.unsqueeze(-1).to(x.dtype),
whose shape [B, T, 1] is not x's [B, T, D] (masked mean pooling)."""
import torch
import torch.nn as nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(11, 4)
        self.wpe = nn.Embedding(6, 4)
        self.ln = nn.LayerNorm(4)

    def forward(self, idx, pad):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
        x = self.ln(self.wte(idx) + self.wpe(pos)).to(idx.device)
        keep = (~pad).unsqueeze(-1).to(x.dtype)
        return (x * keep).sum(1) / keep.sum(1)


def make():
    pad = torch.zeros(3, 6, dtype=torch.bool)
    pad[1, 4:] = True
    pad[2, 2:] = True
    return M(), (torch.randint(0, 11, (3, 6)), pad)
