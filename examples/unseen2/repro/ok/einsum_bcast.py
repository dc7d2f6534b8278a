"""Dense MoE expert projection: torch.einsum("nd,edh->neh") (an operand without the e index)."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(3, 4, 5))
    def forward(self, x, g):
        return (torch.einsum("nd,edh->neh", x, self.w1) * g).sum()
def make():
    return M(), (torch.randn(6, 4, requires_grad=True), torch.randn(6, 3, 5))
