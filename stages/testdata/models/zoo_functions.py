"""torch.*, torch.nn.functional.*, Tensor methods, operator.* and getattr spellings."""
import operator

import torch
import torch.nn.functional as F
from torch import nn

NAME = "zoo_functions"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 6))

    def forward(self, x, y, t):
        n = x.shape[0]
        a = torch.add(x, y, alpha=2) - x.sub(1.5) * torch.mul(y, 3)
        a = a / torch.sqrt(torch.abs(y) + 1) + F.relu(-a) ** 2
        b = torch.clamp(a, min=-1.0, max=2.0) + a.clamp_min(0.1) + torch.clamp_max(a, 0.5)
        c = torch.where(a > 0, a, torch.zeros_like(a)) + torch.ones_like(a).masked_fill(y < 0, -2.0)
        d = torch.exp(-c.abs()) + torch.log1p(c.abs()) + torch.rsqrt(c.abs() + 1) + torch.sigmoid(c) + torch.tanh(c) + torch.erf(c)
        d = d + F.gelu(c) + F.silu(c) + torch.sin(c).cos() + (c.abs() + 1).reciprocal()
        m = x @ self.w + torch.matmul(y, self.w) + F.linear(x, self.w.t())
        r = (torch.sum(d, dim=1, keepdim=True) + d.mean(-1, keepdim=True) + torch.amax(d, 1, keepdim=True)
             - torch.amin(d, dim=1, keepdim=True) + d.var(1, keepdim=True) + torch.var(d, 1, unbiased=False, keepdim=True))
        s = F.softmax(m, dim=-1) + F.log_softmax(m, dim=1) + torch.softmax(m, 0)
        am = torch.argmax(s, dim=1) + s.argmin(1)
        v = s.view(n, 3, 2).permute(2, 0, 1).transpose(0, 1).reshape(n, -1).unsqueeze(0).squeeze(0)
        v = v.flatten().contiguous().view(-1, 6)[:, 1:5:2] + v.T.t()[1:3, ...].sum()
        cat = torch.cat([v, v * 2], dim=1)
        st = torch.stack((v, -v), 0).sum(0)
        p1, p2 = torch.chunk(cat, 2, dim=1)
        q1, q2 = cat.split([3, 1], dim=1)
        vals, idxs = torch.topk(cat, 2, dim=1)
        sv, si = torch.sort(cat, dim=0, descending=True)
        tri = torch.triu(m, 1) + torch.tril(m, -1) + torch.full((4, 6), 0.25) + torch.arange(6).float()
        sel = cat.select(1, 0) + cat.narrow(1, 1, 2).sum(1) + cat[:, -1] + cat[[0, 2]].sum(0)[0]
        ce = F.cross_entropy(m, t) + F.nll_loss(F.log_softmax(m, 1), t, reduction="sum") + F.cross_entropy(m, t, label_smoothing=0.1)
        out = r + p1.sum(1, keepdim=True) + q2 + st.sum(1, keepdim=True) + vals.sum(1, keepdim=True) + sv[:, :1] + si[:, :1].float()
        out = out + am.unsqueeze(1).to(torch.float32) + tri.mean(1, keepdim=True) + sel.unsqueeze(1) + ce + b.mean() + operator.neg(d).max()
        return out, am, idxs


def make():
    x = torch.randn(4, 6)
    y = torch.randn(4, 6)
    t = torch.tensor([1, 0, 4, 2])
    return Model().eval(), (x, y, t)
