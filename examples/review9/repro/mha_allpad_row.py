"""A batch with one fully padded sequence: nn.MultiheadAttention with key_padding_mask all True
for that sample, so PyTorch's softmax row is all -inf -> NaN output and NaN gradients (the
classic 'loss is nan' bug users hit with empty sequences)."""
import torch
import torch.nn as nn

NAME = "r9_mha_allpad_row"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)
        self.fc = nn.Linear(16, 1)

    def forward(self, x, pad):
        out, _ = self.attn(x, x, x, key_padding_mask=pad, need_weights=False)
        return self.fc(out).mean()


def make():
    pad = torch.zeros(3, 5, dtype=torch.bool)
    pad[1, :] = True      # sample 1: every key is padding
    pad[2, 3:] = True
    return M(), (torch.randn(3, 5, 16), pad)
