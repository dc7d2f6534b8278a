"""nn.EmbeddingBag over flat indices with offsets, as recommenders call it, in training: sum with
per_sample_weights, mean with padding_idx, sum with include_last_offset; empty bags in the middle
and at the end, repeated ids; 512 bags over ~5000 entries."""
import torch
import torch.nn as nn

TRAIN = True
B = 512


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = nn.EmbeddingBag(1000, 16, mode="sum")
        self.m = nn.EmbeddingBag(300, 8, mode="mean", padding_idx=3)
        self.l = nn.EmbeddingBag(500, 4, mode="sum", include_last_offset=True)

    def forward(self, idx, off, psw, idx2, off2, idx3, off3):
        a = self.s(idx, off, per_sample_weights=psw)
        b = self.m(idx2, off2)
        c = self.l(idx3, off3)
        return (a * a).sum() + b.pow(2).sum() + c.sum() * 0.5, b


def offsets(n_bags, rows, g, last=False):
    lens = torch.randint(0, 20, (n_bags,), generator=g)
    lens[5] = 0
    lens[-3:] = 0
    off = torch.zeros(n_bags + (1 if last else 0), dtype=torch.long)
    off[1:] = torch.cumsum(lens, 0)[: (n_bags if last else n_bags - 1)]
    idx = torch.randint(0, rows, (int(lens.sum()),), generator=g)
    return idx, off


def make():
    g = torch.Generator().manual_seed(1)
    idx, off = offsets(B, 1000, g)
    idx2, off2 = offsets(B, 300, g)
    idx2[::7] = 3  # padding entries
    idx3, off3 = offsets(B, 500, g, last=True)
    psw = torch.rand(idx.shape[0], generator=g)
    return M(), (idx, off, psw, idx2, off2, idx3, off3)
