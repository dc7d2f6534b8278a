import torch
from torch import nn
TRAIN = False
class M(nn.Module):
    def forward(self, logits):
        # nucleus (top-p) filtering as in HF generate
        sorted_logits, sorted_indices = torch.sort(logits, descending=True)
        cumulative_probs = torch.cumsum(torch.softmax(sorted_logits, dim=-1), dim=-1)
        sorted_remove = cumulative_probs > 0.9
        sorted_remove[:, 1:] = sorted_remove[:, :-1].clone()
        sorted_remove[:, 0] = False
        remove = sorted_remove.scatter(1, sorted_indices, sorted_remove)
        return logits.masked_fill(remove, -float("inf")).softmax(-1)
def make():
    return M(), (torch.randn(64, 8192),)
