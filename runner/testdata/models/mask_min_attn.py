"""An HF-style extended attention mask, (1.0 - mask[:, None, None, :].float()) * finfo(float32).min,
added to attention scores, in training (BERT, T5 and most HF encoders build it this way). The mask is
an integer input: 1.0 - 1.0 is exactly 0 in float32. A simulated float32 rounding that perturbs the
exact 1.0 made it +-6e-8, times finfo.min +-2e31 on every kept key: the softmax of the simulated run
was garbage, and its distance from F (the baseline) the size of the values, so any error passed."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TRAIN = True
B, T, D = 2, 16, 16


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.o = nn.Linear(D, D)

    def forward(self, x, attention_mask):
        ext = (1.0 - attention_mask[:, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(1, 2) / D ** 0.5 + ext
        out = self.o(F.softmax(scores, dim=-1) @ v)
        return (out * out).sum()


def make():
    torch.manual_seed(0)
    lengths = torch.tensor([T, T - 5])
    mask = (torch.arange(T)[None, :] < lengths[:, None]).long()
    return M(), (torch.randn(B, T, D), mask)
