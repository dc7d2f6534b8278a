"""Alpha dropout as self-normalizing networks use it, in training: Linear -> SELU ->
nn.AlphaDropout(0.2) (one draw per element), F.alpha_dropout(p=0.1, training=True), a conv map
through nn.FeatureAlphaDropout(0.3) (one draw per sample and channel), and an nn.AlphaDropout
frozen with .eval() (the identity). The trace records PyTorch's keep masks."""
import torch
import torch.nn as nn
import torch.nn.functional as F
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.drop = nn.AlphaDropout(0.2)
        self.fc2 = nn.Linear(16, 8)
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fdrop = nn.FeatureAlphaDropout(0.3)
        self.frozen = nn.AlphaDropout(0.5)
    def forward(self, x, img):
        h = self.drop(F.selu(self.fc1(x)))
        h = F.alpha_dropout(F.selu(self.fc2(h)), p=0.1, training=True)
        c = self.fdrop(F.selu(self.conv(img)))
        out = self.frozen(h).sum(1) + c.mean((1, 2, 3))
        return out.square().mean(), h
def make():
    torch.manual_seed(0)
    m = M()
    m.frozen.eval()
    return m, (torch.randn(6, 12), torch.randn(6, 3, 5, 5))
