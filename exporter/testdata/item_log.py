"""A training step that logs D(x) with .item() inside forward, as the DCGAN tutorial's loop does
(examples/review9 finding 3): the export must refuse it and say what to change."""
import torch
import torch.nn as nn

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
