"""Two selections by one mask of ranks 2 and 1 added (x[m] + x[:, 0][m]): [K, C] + [K] broadcasts K against C (here K = C = 4), not row by row."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
    def forward(self, x, s):
        x = self.fc(x)
        m = s > 0.5
        return (x[m] + x[:, 0][m]).sum()
def make():
    s = torch.rand(6)
    s[:4], s[4:] = 0.9, 0.1
    return M(), (torch.randn(6, 4), s)
