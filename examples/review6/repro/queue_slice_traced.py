"""A buffer slice written with a traced bound, MoCo's enqueue with the batch size from the keys:
`self.queue[:, 0:x.shape[0]] = q.detach().T` inside torch.no_grad(), in training. The eager run
matches PyTorch; the compiled forward failed to render: "node "index_put": args[1]: cannot
encode a ir.Slice argument". With a constant bound (0:3) it compiled and matched. Fixed in
cb640a2 (runner/testdata/models/setitem_traced_bound.py)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.register_buffer("queue", F.normalize(torch.randn(4, 16), dim=0))

    def forward(self, x):
        q = F.normalize(self.fc(x), dim=1)
        l_neg = torch.einsum("nc,ck->nk", q, self.queue.clone().detach())
        with torch.no_grad():
            self.queue[:, 0:x.shape[0]] = q.detach().T
        return l_neg.logsumexp(1).mean()


def make():
    return M(), (torch.randn(3, 8),)
