"""A BatchNorm module called three times in one training step, as a GAN's discriminator scores
the real batch, the detached fake batch and the fake batch again, or a siamese tower embeds two
inputs: PyTorch updates running_mean, running_var and num_batches_tracked once per call, each
update from the previous one's result. BatchNorm2d with the default momentum, BatchNorm1d with
momentum=None (the cumulative average, 1 / num_batches_tracked)."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 5)
        self.bn1 = nn.BatchNorm1d(5, momentum=None)
    def tower(self, x):
        h = torch.relu(self.bn(self.conv(x))).mean((2, 3))
        return self.bn1(self.fc(h))
    def forward(self, a, b):
        ea, eb, ec = self.tower(a), self.tower(b.detach()), self.tower(a * 2 + 1)
        return (ea * eb).sum() + ec.square().mean(), ec
def make():
    torch.manual_seed(0)
    return M(), (torch.randn(6, 3, 5, 5), torch.randn(6, 3, 5, 5) * 3 + 1)
