"""scatter_reduce as graph networks pool with it, in training: a max pool of node states per
graph (torch.zeros(G, H).scatter_reduce(0, batch expanded, h, "amax", include_self=False)), a
graph no node belongs to (keeps self), amin with include_self=True over a non-zero self, sum
with include_self=False into a -0.0/NaN self, prod along dim 1, ties for the max and a NaN in
src (both reach the output and the gradient)."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 6)
        self.base = nn.Parameter(torch.randn(4, 6))
    def forward(self, x, batch, cols, xn):
        h = torch.tanh(self.lin(x))                                           # 12, 6
        idx = batch.unsqueeze(-1).expand(-1, 6)
        mx = torch.zeros(4, 6).scatter_reduce(0, idx, h, "amax", include_self=False)
        mn = self.base.scatter_reduce(0, idx, h, "amin")                      # include_self=True
        self_nan = torch.cat([torch.full((4, 5), -0.0), torch.full((4, 1), float("nan"))], 1)
        sm = self_nan.scatter_reduce(0, idx, h * 2, "sum", include_self=False)
        pr = (h + 2).scatter_reduce(1, cols, h[:, :4] * 0.5 + 1, "prod")      # 12, 6 along dim 1
        tie = torch.ones(4, 6).scatter_reduce(0, idx, torch.round(h * 2) / 2, "amax", include_self=False)
        nan = torch.zeros(4, 3).scatter_reduce(0, idx[:, :3], xn, "amax", include_self=False)
        loss = mx.sum() + (mn * mn).sum() + sm[:, :5].sum() + pr.mean() + tie.sum()
        return loss, mx, sm, nan
def make():
    torch.manual_seed(0)
    batch = torch.tensor([0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 3, 3])               # graph 2 is empty
    cols = torch.randint(0, 6, (12, 4))
    xn = torch.randn(12, 3)
    xn[4, 1] = float("nan")
    return M(), (torch.randn(12, 5), batch, cols, xn)
