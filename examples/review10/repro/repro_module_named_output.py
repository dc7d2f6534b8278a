import torch
from torch import nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.output = nn.Linear(8, 4)   # LLaMA / Meta reference code names its LM head `output`
    def forward(self, x):
        return self.output(x).sum()
def make():
    return M(), (torch.randn(2, 8),)
