"""torchvision.ops.stochastic_depth as torchvision writes it, in training, on a residual MLP block:
`size = [input.shape[0]] + [1] * (input.ndim - 1)`, then `torch.empty(size, dtype=input.dtype,
device=input.device).bernoulli_(survival_rate)` and `noise.div_(survival_rate)`. fx failed on the
torch.empty of a traced size (examples/review8, helper-89)."""
import torch
import torch.nn as nn

TRAIN = True


def stochastic_depth(input, p, mode, training=True):
    if not training or p == 0.0:
        return input
    survival_rate = 1.0 - p
    if mode == "row":
        size = [input.shape[0]] + [1] * (input.ndim - 1)
    else:
        size = [1] * input.ndim
    noise = torch.empty(size, dtype=input.dtype, device=input.device)
    noise = noise.bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 32)

    def forward(self, x):
        y = x + stochastic_depth(self.fc2(torch.relu(self.fc1(x))), 0.3, "row", self.training)
        y = y + stochastic_depth(torch.tanh(y), 0.2, "batch", self.training)
        return y.square().mean()


def make():
    return M(), (torch.randn(64, 32),)
