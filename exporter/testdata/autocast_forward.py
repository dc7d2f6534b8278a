"""Mixed precision inside forward: `with torch.autocast("cpu", dtype=torch.bfloat16):` around
the layers. torch.fx records no autocast, so the trace computed float32 where PyTorch's
reference computed bfloat16 (gcdbg run: MISMATCH on every value, "dtype float32, expected
bfloat16", "reference != PyTorch"). Refused, naming the line and what to change."""
import torch
import torch.nn as nn
import torch.nn.functional as F
TRAIN = True
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)
    def forward(self, x, y):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = self.fc2(F.gelu(self.fc1(x)))
        return F.cross_entropy(logits.float(), y)
def make():
    return M(), (torch.randn(8, 16), torch.randint(0, 4, (8,)))
