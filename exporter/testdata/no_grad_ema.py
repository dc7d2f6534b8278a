"""An EMA buffer updated inside `with torch.no_grad():` from a value that carries gradient (h),
then read outside: PyTorch sends no gradient through the update, and the source line
`self.ema.mul_(...).add_(h.mean(0) ...)` is what gcdbg must detach (the write's source), since
no data edge leaves the block."""
import torch
import torch.nn as nn

TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.register_buffer("ema", torch.zeros(8))
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        h = self.fc(x)
        with torch.no_grad():
            self.ema.mul_(0.5).add_(h.mean(0) * 0.5)
            self.steps.add_(1)
        return (h * self.ema).pow(2).mean()


def make():
    return M(), (torch.randn(16, 8),)
