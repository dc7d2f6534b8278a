"""One DCGAN training step as a single module: the generator (Linear -> view -> ConvTranspose2d
4x4 stride 2 + BatchNorm2d + ReLU, four times, Tanh) makes 64x64 images from z drawn with
torch.randn inside the step; the discriminator (Conv2d 4x4 stride 2 + BatchNorm2d + LeakyReLU
(0.2), no spectral norm, Dropout2d(0.1), a 4x4 valid conv to one logit) scores the real batch and
the fake batch (fake.detach() for the discriminator loss, as in the PyTorch DCGAN tutorial, and
the fake batch again for the generator loss); both losses are
binary_cross_entropy_with_logits against ones_like/zeros_like, label smoothing 0.9 on the reals.
The step returns d_loss + g_loss (one backward fills both networks' grads, as a fused step does).
B64 x 3 x 64^2; the generator's last hidden map 64 x 64 x 32^2 (16.8 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "vis_dcgan"
TRAIN = True

B, Z, G, D = 64, 100, 64, 64


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(Z, G * 8 * 4 * 4)
        self.net = nn.Sequential(
            nn.BatchNorm2d(G * 8), nn.ReLU(True),
            nn.ConvTranspose2d(G * 8, G * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(G * 4), nn.ReLU(True),
            nn.ConvTranspose2d(G * 4, G * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(G * 2), nn.ReLU(True),
            nn.ConvTranspose2d(G * 2, G, 4, 2, 1, bias=False), nn.BatchNorm2d(G), nn.ReLU(True),
            nn.ConvTranspose2d(G, 3, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.net(self.fc(z).view(-1, G * 8, 4, 4))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, D, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(D, D * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(D * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Dropout2d(0.1),
            nn.Conv2d(D * 2, D * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(D * 4), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(D * 4, D * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(D * 8), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(D * 8, 1, 4, 1, 0, bias=False))

    def forward(self, x):
        return self.net(x).view(-1)


class GANStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.G = Generator()
        self.D = Discriminator()

    def forward(self, real):
        z = torch.randn(real.size(0), Z, device=real.device)
        fake = self.G(z)
        d_real = self.D(real)
        d_fake = self.D(fake.detach())
        d_loss = F.binary_cross_entropy_with_logits(d_real, torch.full_like(d_real, 0.9)) + \
            F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
        g_out = self.D(fake)
        g_loss = F.binary_cross_entropy_with_logits(g_out, torch.ones_like(g_out))
        return d_loss + g_loss, d_loss.detach(), g_loss.detach(), fake


def make():
    real = torch.rand(B, 3, 64, 64) * 2 - 1
    return GANStep(), (real,)
