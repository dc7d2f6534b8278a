"""T5's relative position bias as HF computes it (bidirectional, 32 buckets, max distance 128):
(log(|j - i| / 8) / log(16) * 8).to(torch.long) is an integer (2.0, 4.0) at |j - i| = 16, 32, an
embedding of the buckets summed per position and weighted by a float input, in training. The
float-to-long truncation sits on an integer: a simulated rounding perturbation flips the bucket."""
import math
import torch
import torch.nn as nn

TRAIN = True


def relative_position_bucket(relative_position, num_buckets=32, max_distance=128):
    num_buckets //= 2
    relative_buckets = (relative_position > 0).to(torch.long) * num_buckets
    relative_position = torch.abs(relative_position)
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    large = max_exact + (torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return relative_buckets + torch.where(is_small, relative_position, large)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Embedding(32, 4)

    def forward(self, x):
        t = x.size(1)
        rp = torch.arange(t)[None, :] - torch.arange(t)[:, None]
        return (self.bias(relative_position_bucket(rp)).sum(-1) * x).sum()


def make():
    torch.manual_seed(0)
    return M(), (torch.randn(64, 64),)
