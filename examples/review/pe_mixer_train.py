# A review model: token MLP-mixer-ish classifier whose positional encoding is built
# each step from torch.linspace (frequencies) and whose residual uses torch.eye as a
# learned-mixing init; Linear+GELU epilogues writing graph outputs; training mode.
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True

class PEMixer(nn.Module):
    def __init__(self, d=256, t=128, hidden=1024, classes=100):
        super().__init__()
        self.t = t
        self.inp = nn.Linear(64, d)
        self.norm1 = nn.LayerNorm(d)
        self.mix = nn.Parameter(torch.zeros(t, t))
        self.norm2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(d, classes)

    def forward(self, x, y):
        B, T, _ = x.shape
        d = self.inp.out_features
        freqs = torch.logspace(0.0, -4.0, d // 2, base=10.0)
        pos = torch.linspace(0, T - 1, T)
        ang = pos[:, None] * freqs[None, :]
        pe = torch.cat([torch.sin(ang), torch.cos(ang)], dim=-1)
        h = self.inp(x) + pe
        mixer = torch.eye(T) + self.mix
        h = h + torch.matmul(mixer, self.norm1(h))
        h = h + self.drop(self.fc2(F.gelu(self.fc1(self.norm2(h)))))
        logits = self.head(h.mean(1))
        return F.cross_entropy(logits, y)

def make():
    torch.manual_seed(0)
    m = PEMixer()
    m.train()
    x = torch.randn(64, 128, 64)
    y = torch.randint(0, 100, (64,))
    return m, (x, y)
