"""index_add as graph networks write it, in training: messages summed into their destination
nodes with torch.zeros_like(x).index_add_(0, dst, msg) (repeated destinations, a node no edge
reaches), Tensor.index_add along dim 1 with alpha=2.5 and an int32 index, torch.index_add of a
parameter (its gradient is the incoming gradient, source's is gathered back), and a mean pool
over graphs by index_add_ of ones."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 6)
        self.base = nn.Parameter(torch.randn(3, 6))
    def forward(self, x, src, dst, cols, batch):
        msg = torch.relu(self.lin(x[src]))                        # E, 6
        agg = torch.zeros_like(x).index_add_(0, dst, msg)         # N, 6
        wide = x.index_add(1, cols, msg[:10, :4] * x[:, :4], alpha=2.5)
        pooled = torch.index_add(self.base, 0, batch, agg)        # 3, 6
        count = torch.zeros(3).index_add_(0, batch, torch.ones(x.size(0)))
        return (pooled / count.clamp(min=1).unsqueeze(-1)).sum() + wide.square().mean(), agg
def make():
    torch.manual_seed(0)
    n = 10
    src = torch.randint(0, n, (24,))
    dst = torch.randint(0, n - 1, (24,))                           # node n-1 receives nothing
    dst[:3] = 4                                                    # repeated destination
    cols = torch.tensor([5, 0, 5, 2], dtype=torch.int32)           # repeated column
    batch = torch.tensor([0, 0, 0, 1, 1, 1, 1, 2, 2, 2])
    return M(), (torch.randn(n, 6, requires_grad=True), src, dst, cols, batch)
