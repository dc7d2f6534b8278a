"""A tiny MLP whose weights (64 x 64 float32, 16 KB) go to the safetensors sidecar; used by
sidecar_clobber.sh."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "r8_sidecar_model"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 64)
        self.fc2 = nn.Linear(64, 4)

    def forward(self, x, y):
        return F.cross_entropy(self.fc2(F.relu(self.fc1(x))), y)


def make():
    return M(), (torch.randn(32, 64), torch.randint(0, 4, (32,)))
