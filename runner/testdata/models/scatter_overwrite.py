# scatter (no reduce=) compiled as generated C (loopir/scatter.go, render/scatter_extern.go), in
# training so its gradients (self: grad.scatter(dim, index, 0), src: grad.gather(dim, index)) are
# checked: top-2 gates scattered into a dense [N, E] along dim 1 (an MoE router), the inverse of a
# permutation along dim 0 (torch.empty_like(v).scatter(0, order, v)), duplicate indices along
# dim 1 and dim 0 (the last write in index order wins, as in PyTorch's CPU kernel), a transposed
# (strided) src, a transposed self with a src larger than the index, an expanded (stride-0) index,
# a long index (40 entries into 10 rows), the value form on float, bool and int64.
import torch
from torch import nn

NAME = "scatter_overwrite"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = nn.Parameter(torch.randn(8, 4))
        self.w = nn.Parameter(torch.randn(5, 6))
        self.s = nn.Parameter(torch.randn(4, 5))
        self.register_buffer("dup1", torch.tensor([[0, 2, 0, 5], [1, 1, 1, 1], [5, 4, 5, 3], [2, 2, 0, 0], [3, 3, 3, 1]]))
        self.register_buffer("dup0", torch.tensor([[0, 1, 2, 3, 4, 0], [4, 1, 2, 3, 0, 4], [0, 0, 0, 0, 0, 0]]))
        self.register_buffer("long_idx", torch.randint(0, 10, (40, 3)))

    def forward(self, x, src):
        logits = x @ self.router
        gates, experts = torch.topk(logits.softmax(-1), 2, dim=-1)
        dense = torch.zeros_like(logits).scatter(1, experts, gates / gates.sum(-1, keepdim=True))
        v, order = torch.sort(x[:, 0] * 3.0, descending=True)
        inv = torch.empty_like(v).scatter(0, order, v * 2)
        a = self.w.scatter(1, self.dup1, self.s.t()[:, :4] * 2)
        b = self.w.scatter(0, self.dup0, self.s[:3, :].repeat(1, 2)[:, :6])
        c = torch.zeros_like(src[:10]).scatter(0, self.long_idx, src)
        d = self.w.scatter(1, self.dup1, -1.5)
        e = torch.zeros(5, 6, dtype=torch.bool).scatter(1, self.dup1, True)
        f = self.dup1.scatter(1, self.dup1[:, 1:3] % 4, 7)
        g = self.w.t().scatter(0, self.dup1.t()[:3], x[:4, :5] * 1.5)
        h = torch.zeros_like(self.w).scatter(1, self.dup1[:, :1].expand(5, 3), self.s.t()[:, :3])
        loss = (dense * logits).sum() + (inv * inv).sum() + (a * a).sum() + b.tanh().sum() + d.sum() + (g * h.t()[:6]).sum()
        return loss, dense, inv, a, b, c, d, e, f, g, h


def make():
    return M(), (torch.randn(16, 8), torch.randn(40, 3))
