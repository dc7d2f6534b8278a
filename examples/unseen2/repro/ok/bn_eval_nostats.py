"""BatchNorm2d(track_running_stats=False) in eval uses batch statistics; InstanceNorm2d(track_running_stats=True) in eval uses running stats."""
import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(4, track_running_stats=False)
        self.inn = nn.InstanceNorm2d(4, affine=True, track_running_stats=True)
        self.inn.running_mean.fill_(0.5); self.inn.running_var.fill_(2.0)
    def forward(self, x):
        return self.bn(x) + self.inn(x)
def make():
    return M(), (torch.randn(2, 4, 5, 5) * 3 + 1,)
