"""Nodes whose only keyword argument is named like an ARG tag (dtype=, device=):
bench_eager.py decoded such a kwargs mapping as that ARG and could not rebuild the
graph (TypeError: unhashable type: 'dict'), so `gcdbg bench` fell back to the recorded
time (examples/unseen3: nn.TransformerEncoder with src_key_padding_mask in training)."""
import torch
import torch.nn as nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, pad):
        h = self.lin(x)
        mask = torch.zeros_like(pad, dtype=torch.float32).masked_fill(pad, float("-inf"))
        w = torch.softmax(h.sum(-1) + mask, dim=-1)
        return (h * w.unsqueeze(-1)).sum(1), torch.ones_like(x, device=x.device).sum()


def make():
    pad = torch.zeros(3, 5, dtype=torch.bool)
    pad[1, 3:] = True
    return M(), (torch.randn(3, 5, 4), pad)
