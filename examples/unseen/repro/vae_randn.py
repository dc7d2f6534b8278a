"""Reparameterisation with torch.randn(shape) (not randn_like), a common way to write it."""
import torch
import torch.nn as nn

NAME = "vae_randn"
TRAIN = True

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = nn.Linear(8, 4)
        self.lv = nn.Linear(8, 4)
    def forward(self, x):
        mu, logvar = self.mu(x), self.lv(x)
        eps = torch.randn(mu.shape)
        return (mu + eps * torch.exp(0.5 * logvar)).sum()

def make():
    return M(), (torch.randn(2, 8),)
