"""Issue 15: a model of the kind users bring (exported by exporter/gcdbg_export.py with --train)."""
import torch
import torch.nn.functional as F
from torch import nn
NAME = "vae"
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(20, 16)
        self.mu = nn.Linear(16, 4)
        self.lv = nn.Linear(16, 4)
        self.dec = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 20))
    def forward(self, x, eps):
        h = F.elu(self.enc(x))
        mu, logvar = self.mu(h), self.lv(h)
        z = mu + eps * torch.exp(0.5 * logvar)
        rec = torch.sigmoid(self.dec(z))
        bce = F.binary_cross_entropy(rec, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return bce + kld
def make():
    return M(), (torch.rand(8, 20), torch.randn(8, 4))
