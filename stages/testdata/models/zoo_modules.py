"""Every nn.Module type gcdbg normalizes, in one small eval-mode network."""
import torch
from torch import nn

NAME = "zoo_modules"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=1, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, stride=2, padding=1, dilation=1, groups=8, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(2, stride=1, padding=1, ceil_mode=True)
        self.avgpool = nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)
        self.adapt = nn.AdaptiveAvgPool2d((3, 2))
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(48, 16)
        self.ln = nn.LayerNorm(16)
        self.gelu = nn.GELU(approximate="tanh")
        self.silu = nn.SiLU()
        self.tanh = nn.Tanh()
        self.sig = nn.Sigmoid()
        self.drop = nn.Dropout(0.3)
        self.ident = nn.Identity()
        self.emb = nn.Embedding(10, 16, padding_idx=0)
        self.softmax = nn.Softmax(dim=1)
        self.logsoftmax = nn.LogSoftmax(dim=-1)

    def forward(self, x, idx):
        # Make BatchNorm's running statistics non-trivial.
        h = self.relu(self.bn(self.dw(self.conv(x))))
        h = self.avgpool(self.maxpool(h))
        h = self.flatten(self.adapt(h))
        h = self.ln(self.fc(h))
        h = self.drop(self.ident(self.gelu(h) + self.silu(h) * self.tanh(h) - self.sig(h)))
        e = self.emb(idx).sum(1)
        return self.softmax(h + e), self.logsoftmax(h)


def make():
    m = Model()
    with torch.no_grad():
        m.bn.running_mean.uniform_(-0.5, 0.5)
        m.bn.running_var.uniform_(0.5, 2.0)
        m.bn.weight.uniform_(0.5, 1.5)
        m.bn.bias.uniform_(-0.2, 0.2)
    x = torch.randn(2, 3, 8, 8)
    idx = torch.tensor([[1, 0, 3], [9, 2, 0]])
    return m, (x, idx)
