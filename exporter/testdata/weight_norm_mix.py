"""nn.utils.weight_norm on a Conv1d (dim=0, WaveNet/TTS style), a Conv2d (dim=None: one norm of
the whole v) and a bias-free Linear (dim=1): the tracer writes weight = v * (g / ||v||) out as
graph nodes, so gcdbg differentiates with respect to weight_g and weight_v as PyTorch does."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.utils.weight_norm(nn.Conv1d(3, 4, 3, padding=1))
        self.c2 = nn.utils.weight_norm(nn.Conv2d(1, 2, 3, stride=2), dim=None)
        self.fc = nn.utils.weight_norm(nn.Linear(4, 5, bias=False), dim=1)
        with torch.no_grad():
            self.c1.weight_g.mul_(1.5)
            self.c2.weight_g.mul_(0.5)
            self.fc.weight_g.add_(0.25)

    def forward(self, x):
        h = F.relu(self.c1(x))                       # (2, 4, 9)
        h = self.c2(h.unsqueeze(1))                  # (2, 2, 1, 4)
        return self.fc(h.flatten(2).mean(1))


def make():
    return M(), (torch.randn(2, 3, 9),)
