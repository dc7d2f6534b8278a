"""Convolutional beta-VAE training step (dSprites/CelebA-style) in training: an encoder of
Conv2d(4, stride 2, padding 1) + BatchNorm2d + LeakyReLU(0.2) x 3, flatten, Linear heads for mu and
logvar; the reparameterization written by hand, z = mu + torch.exp(0.5 * logvar) *
torch.randn_like(mu) (torch.distributions cannot be traced, see README); a decoder of Linear ->
view -> ConvTranspose2d(4, stride 2, padding 1) + BatchNorm2d + ReLU x 2 -> ConvTranspose2d to one
channel -> sigmoid; loss F.binary_cross_entropy(recon, x, reduction="sum") / B + beta * KL with
KL = -0.5 * sum(1 + logvar - mu^2 - exp(logvar)) / B.
B64 x 1 x 64 x 64 images in [0, 1]; first feature map 64 x 32 x 32 x 32 (8.4 MB); latent 16."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "conv_vae"
TRAIN = True

B, IMG, Z, BETA = 64, 64, 16, 4.0


def down(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 4, 2, 1, bias=False), nn.BatchNorm2d(cout), nn.LeakyReLU(0.2, inplace=True))


def up(cin, cout):
    return nn.Sequential(nn.ConvTranspose2d(cin, cout, 4, 2, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class ConvVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(down(1, 32), down(32, 64), down(64, 64))       # 64 -> 8
        self.mu = nn.Linear(64 * 8 * 8, Z)
        self.logvar = nn.Linear(64 * 8 * 8, Z)
        self.fc = nn.Linear(Z, 64 * 8 * 8)
        self.dec = nn.Sequential(up(64, 64), up(64, 32), nn.ConvTranspose2d(32, 1, 4, 2, 1))

    def forward(self, x):
        h = self.enc(x).flatten(1)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu)
        recon = torch.sigmoid(self.dec(self.fc(z).view(-1, 64, 8, 8)))
        n = x.size(0)
        rec = F.binary_cross_entropy(recon, x, reduction="sum") / n
        kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / n
        return rec + BETA * kl, rec.detach(), kl.detach()


def make():
    x = (torch.rand(B, 1, IMG, IMG) > 0.7).float() * torch.rand(B, 1, IMG, IMG)
    return ConvVAE(), (x,)
