"""Factory draws (examples/unseen/repro/rand_const_min.py, vae_randn_const.py, vae_randn.py):
torch.rand with a Python-int size, torch.randn with int sizes, a tuple holding a traced size, and
a traced shape, with a dtype; fx must record each as a node, not freeze it into a constant."""
import torch
from torch import nn

NAME = "rand_const"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = nn.Linear(8, 4)
        self.lv = nn.Linear(8, 4)

    def forward(self, x):
        mu, logvar = self.mu(x), self.lv(x)
        eps = torch.randn(2, 4)
        eps2 = torch.randn(mu.shape)
        noise = torch.rand((x.shape[0], 4), dtype=torch.float64)
        z = mu + eps * torch.exp(0.5 * logvar) + eps2 * 0.5
        return (z * noise.float()).sum() + torch.rand(3).sum(), z


def make():
    return M(), (torch.randn(2, 8),)
