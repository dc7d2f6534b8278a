"""Advanced indexing with several integer index tensors in training, as DLRM gathers its pairwise
interactions (Z[:, li, lj] with a tril_indices buffer): adjacent index tensors in the middle
(Z[:, li, lj]), at the front with a trailing dim (W[a, b]), broadcast against each other
(W[r[:, None], c[None, :]]), negative indices, and repeated positions (their gradients add)."""
import torch
import torch.nn as nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 5, 3))
        self.lin = nn.Linear(3, 4)
        li, lj = torch.tril_indices(4, 4, offset=-1)
        self.register_buffer("li", li)
        self.register_buffer("lj", lj)
        self.register_buffer("a", torch.tensor([0, -1, 2, 2, 5]))
        self.register_buffer("b", torch.tensor([4, 0, -2, -2, 1]))
        self.register_buffer("r", torch.tensor([1, 3, 1]))
        self.register_buffer("c", torch.tensor([0, 2]))

    def forward(self, x):
        t = self.lin(x)                          # B, 4, 4
        z = torch.bmm(t, t.transpose(1, 2))      # B, 4, 4
        zf = z[:, self.li, self.lj]              # B, 6
        wa = self.w[self.a, self.b]              # 5, 3 (repeated (2, -2))
        wb = self.w[self.r[:, None], self.c[None, :]]   # 3, 2, 3
        wc = self.w[:, self.b, 1:2]              # one index tensor: 6, 5, 1
        return (zf * zf).sum() + (wa * wa.detach().cos()).sum() + wb.pow(3).sum() + wc.sum(), zf


def make():
    return M(), (torch.randn(2, 4, 3),)
