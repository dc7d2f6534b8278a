"""The DCGAN tutorial logs D(x) with `output.mean().item()` inside the step."""
import torch
import torch.nn as nn

NAME = "r9_gan_item_log"
TRAIN = True


class Step(nn.Module):
    def __init__(self):
        super().__init__()
        self.D = nn.Sequential(nn.Linear(8, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
        self.crit = nn.BCEWithLogitsLoss()

    def forward(self, x):
        out = self.D(x).view(-1)
        D_x = torch.sigmoid(out).mean().item()
        return self.crit(out, torch.ones_like(out)), D_x


def make():
    return Step(), (torch.randn(4, 8),)
