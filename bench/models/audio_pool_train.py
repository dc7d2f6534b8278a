"""Raw-audio front end in training: Conv1d(1, 64, 9, padding=4) -> BatchNorm1d -> ReLU ->
AvgPool1d(4, stride=2, padding=1) -> Conv1d(64, 64, 3, padding=1) -> ReLU -> global mean ->
Linear -> cross-entropy; B16 x 16000 samples (1 s at 16 kHz): each activation 16 x 64 x 16000
(65.5 MB)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "audio_pool_train"
TRAIN = True


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(1, 64, 9, padding=4)
        self.bn = nn.BatchNorm1d(64)
        self.pool = nn.AvgPool1d(4, stride=2, padding=1)
        self.c2 = nn.Conv1d(64, 64, 3, padding=1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x, y):
        h = self.pool(F.relu(self.bn(self.c1(x))))
        h = F.relu(self.c2(h)).mean(-1)
        return F.cross_entropy(self.fc(h), y)


def make():
    return Net(), (torch.randn(16, 1, 16000), torch.randint(0, 10, (16,)))
