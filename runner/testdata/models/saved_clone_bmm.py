"""A clone of a buffer fed to a matmul, as MoCo's `einsum("nc,ck->nk", q, self.queue.clone().detach())`
writes it, in training: the partition saves the clone for the backward (a forward output that is a
copy of an input), and the renderer made that output the input's slot (render/alias.go) while the
bmm still read the clone: "bmm mat2 (einsum_view_1) has no buffer in memory"."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 128)
        self.register_buffer("queue", torch.randn(128, 2048))
    def forward(self, x):
        return torch.einsum("nc,ck->nk", self.fc(x), self.queue.clone()).logsumexp(1).mean()
def make():
    torch.manual_seed(0)
    return M(), (torch.randn(32, 8),)
