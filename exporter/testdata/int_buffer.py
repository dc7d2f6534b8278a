"""MoCo's dequeue-and-enqueue reads its queue pointer with int() of a buffer: torch.fx has no value
for it while tracing. Refused, saying to keep the pointer a Python attribute the training step
advances (before: the generic hint, which sends the user to graph_breaks)."""
import torch
import torch.nn as nn
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("queue", torch.zeros(4, 16))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))
    def forward(self, x):
        k = self.fc(x)
        with torch.no_grad():
            ptr = int(self.queue_ptr)
            self.queue[:, ptr:ptr + 2] = k.detach().T
        return k.sum()
def make():
    return M(), (torch.randn(2, 4),)
