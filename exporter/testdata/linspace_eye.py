"""torch.linspace, torch.logspace and torch.eye of Python numbers inside forward: fx would run each
while tracing and freeze its result into a _tensor_constant; the exporter records them as graph
nodes, as Dynamo's captured graph shows them, so gcdbg computes them (ir/ops_linspace.go). Lengths
that take PyTorch's vectorized pairs and the halfway switch (50, 37), an integer dtype (truncated
values), a float64 logspace of base 2, eye square and rectangular, bool, with gradients through x."""
import torch
from torch import nn

NAME = "linspace_eye"


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(50, 37)

    def forward(self, x):
        t = torch.linspace(-3.1, 9.7, 50)                      # float32, vector pairs of 8
        d = torch.linspace(5, -3, 37, dtype=torch.float64)     # decreasing, float64 pairs of 4
        i = torch.linspace(0, 255, 17, dtype=torch.int64)      # truncated: 0, 15, 31, ...
        g = torch.logspace(-2, 2, 9, base=2.0)
        h = torch.logspace(0, 3, 33, dtype=torch.float64)
        e = torch.eye(37)
        r = torch.eye(4, 50, dtype=torch.bool)
        y = self.lin(x * t) @ e + d.to(torch.float32)
        z = torch.where(r, x, g[:4].unsqueeze(1))
        return y, z, i, h


def make():
    return M(), (torch.randn(4, 50, requires_grad=True),)
