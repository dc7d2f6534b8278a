"""nn.utils.weight_norm on a Linear: the weight is recomputed from weight_g/weight_v by a forward pre-hook."""
import torch
import torch.nn as nn
TRAIN = True
def make():
    m = nn.Sequential(nn.utils.weight_norm(nn.Linear(8, 16)), nn.Tanh(), nn.Linear(16, 2))
    with torch.no_grad():
        m[0].weight_g.mul_(3.0)   # so that weight_g/weight_v differ from the stale .weight
    return m, (torch.randn(4, 8),)
