"""MoCo's key encoder in miniature: forward updates a second Linear's parameters by momentum
through `.data` (`pk.data.mul_(m).add_(pq.data, alpha=1 - m)`), as MoCo's reference code does.
torch.fx runs the update on the real parameters while tracing (the graph does not hold it) and
the reference run applies it again: refused, saying to update outside forward."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(6, 6)
        self.k = nn.Linear(6, 6)
        for p in self.k.parameters():
            p.requires_grad = False
    def forward(self, x):
        with torch.no_grad():
            for pq, pk in zip(self.q.parameters(), self.k.parameters()):
                pk.data.mul_(0.9).add_(pq.data, alpha=0.1)
        return (self.q(x) * self.k(x)).sum()
def make():
    return M(), (torch.randn(4, 6),)
