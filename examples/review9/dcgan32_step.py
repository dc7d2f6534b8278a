"""DCGAN at 32x32 (CIFAR), the PyTorch DCGAN tutorial's training step pieces in one forward:
Generator from a B x nz x 1 x 1 noise input (ConvTranspose2d 4/1/0 to 4x4, then three
ConvTranspose2d 4/2/1 with BatchNorm2d + ReLU, Tanh), Discriminator (Conv2d 4/2/1 +
LeakyReLU(0.2, inplace), two Conv2d 4/2/1 + BatchNorm2d + LeakyReLU, Conv2d 4/1/0 to one logit),
nn.BCEWithLogitsLoss against label tensors built with torch.full((b,), label). errD = errD_real +
errD_fake (fake.detach()), errG = D(fake) against real labels; the step returns errD + errG
(one backward filling both networks, as a fused step would) and D(x).mean() as a logged stat.
B16, nz 100, ngf = ndf = 64: the generator's 16 x 128 x 16^2 map (2 MB)."""
import torch
import torch.nn as nn

NAME = "r9_dcgan32_step"
TRAIN = True
B, NZ, NGF, NDF = 16, 100, 64, 64
REAL, FAKE = 1.0, 0.0


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(NZ, NGF * 4, 4, 1, 0, bias=False), nn.BatchNorm2d(NGF * 4), nn.ReLU(True),
            nn.ConvTranspose2d(NGF * 4, NGF * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF * 2), nn.ReLU(True),
            nn.ConvTranspose2d(NGF * 2, NGF, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF), nn.ReLU(True),
            nn.ConvTranspose2d(NGF, 3, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(3, NDF, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(NDF, NDF * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(NDF * 2, NDF * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 4), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(NDF * 4, 1, 4, 1, 0, bias=False))

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class DCGANStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.netG = Generator()
        self.netD = Discriminator()
        self.netG.apply(weights_init)
        self.netD.apply(weights_init)
        self.criterion = nn.BCEWithLogitsLoss()

    def forward(self, real, noise):
        b = real.size(0)
        label = torch.full((b,), REAL, dtype=torch.float, device=real.device)
        output = self.netD(real)
        errD_real = self.criterion(output, label)
        D_x = torch.sigmoid(output).mean()
        fake = self.netG(noise)
        label_f = torch.full((b,), FAKE, dtype=torch.float, device=real.device)
        output = self.netD(fake.detach())
        errD_fake = self.criterion(output, label_f)
        errD = errD_real + errD_fake
        output = self.netD(fake)
        errG = self.criterion(output, label)
        return errD + errG, D_x.detach()


def make():
    real = torch.rand(B, 3, 32, 32) * 2 - 1
    noise = torch.randn(B, NZ, 1, 1)
    return DCGANStep(), (real, noise)
