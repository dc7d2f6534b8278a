"""MNIST-style VAE: encoder 784-400 ReLU, mu/logvar heads, reparameterisation with
torch.randn_like, decoder 20-400-784 with sigmoid, loss = BCE(sum) + KL; training, batch 64."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "vae"
TRAIN = True


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        recon = self.decode(z)
        bce = F.binary_cross_entropy(recon, x.view(-1, 784), reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return (bce + kld) / x.size(0)


def make():
    return VAE(), (torch.rand(64, 1, 28, 28),)
