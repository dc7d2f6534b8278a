import torch
from torch import nn
TRAIN = False
class M(nn.Module):
    def forward(self, x):
        return torch.kthvalue(x, 2, dim=1)   # values and indices; row 1 has ties
def make():
    x = torch.tensor([[3.0, 1.0, 2.0, 0.5], [1.0, 1.0, 1.0, 1.0]], requires_grad=True)
    return M(), (x,)
