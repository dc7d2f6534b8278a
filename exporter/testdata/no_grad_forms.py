"""Grad mode switched off by the other spellings: a @torch.no_grad() method, torch.set_grad_enabled(False)
as a context manager, torch.inference_mode(), and torch.enable_grad() nested inside no_grad (which
turns gradients back on). The input requires grad too."""
import torch
import torch.nn as nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 6)
        self.c = nn.Linear(6, 6)

    @torch.no_grad()
    def target(self, x):
        return torch.tanh(self.b(x))

    def forward(self, x):
        h = self.a(x)
        t = self.target(x)
        with torch.set_grad_enabled(False):
            s = torch.sigmoid(self.c(h))
            with torch.enable_grad():
                e = self.c(h).relu()
        with torch.inference_mode():
            q = (h * 2).sum(-1, keepdim=True)
        return (h * t + s * h + e).sum() + (h * q.clone()).mean()


def make():
    return M(), (torch.randn(5, 6, requires_grad=True),)
