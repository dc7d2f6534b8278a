"""index_fill and index_copy in training: whole columns masked with index_fill (a negative and a
repeated index), a row filled with a 0-dim parameter (its gradient is the sum over the row) by a
scalar index, a cache's rows replaced with index_copy (a repeated row: the last slice wins; the
cache requires grad, zero where overwritten), index_copy_ along dim 1 into zeros."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 6)
        self.v = nn.Parameter(torch.tensor(0.5))
    def forward(self, x, rows, cols, cache):
        h = self.lin(x)                                             # 8, 6
        a = h.index_fill(1, cols, -1.0)
        b = h.index_fill(0, torch.tensor(2), self.v)
        c = cache.index_copy(0, rows, h[:3] * 2)
        c2 = torch.zeros(8, 6).index_copy_(1, torch.tensor([4, 0]), h[:, :2])
        loss = a.square().sum() + (b * b).sum() + (c * c).sum() + (c2 * h).sum()
        return loss, a, c
def make():
    torch.manual_seed(0)
    rows = torch.tensor([5, 1, 5])                                 # repeated: the last wins
    cols = torch.tensor([0, -1, 0])                                 # negative and repeated
    return M(), (torch.randn(8, 5), rows, cols, torch.randn(7, 6, requires_grad=True))
