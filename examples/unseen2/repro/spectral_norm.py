"""nn.utils.spectral_norm on a Conv2d (GAN discriminator): power iteration updates buffers u, v in training."""
import torch
import torch.nn as nn
TRAIN = True
def make():
    m = nn.Sequential(nn.utils.spectral_norm(nn.Conv2d(3, 8, 3)), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * 6 * 6, 1))
    return m, (torch.randn(2, 3, 8, 8),)
