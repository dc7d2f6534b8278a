"""A VAE's sampling and KL written with torch.distributions (Normal(...).rsample(),
kl_divergence): not traceable by fx; the export must fail, name the line and say to write the
reparameterization with randn_like and the KL by hand."""
import torch
from torch import nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)
    def forward(self, x):
        mu, logvar = self.fc(x).chunk(2, dim=-1)
        q = torch.distributions.Normal(mu, torch.exp(0.5 * logvar))
        z = q.rsample()
        p = torch.distributions.Normal(torch.zeros_like(mu), torch.ones_like(mu))
        return z.square().mean() + torch.distributions.kl_divergence(q, p).sum(-1).mean()
def make():
    return M(), (torch.randn(3, 4),)
