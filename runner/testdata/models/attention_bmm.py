# Batched GEMMs with their epilogues (issue 13; render/gemm_batch.go): causal attention whose
# QK^T epilogue (scale, mask) runs per batch right after its GEMM and whose PV result is
# written straight into the output (the identity copy of the view dropped); a product read
# transposed by its epilogue (which must stay a nest after all batches); a batch count that
# does not share evenly over two threads (3); a Linear on a 3-D input, whose mm result is viewed
# back to 3-D (that copy is dropped too: the mm writes the output). The inputs hold NaN, +Inf and -Inf, so rows of
# the softmax turn NaN exactly where PyTorch's do.
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/attention_bmm.py \
#         -o runner/testdata/attention_bmm.json --seed 0 --runs 0
import math

import torch
import torch.nn.functional as F
from torch import nn

NAME = "attention_bmm"


class M(nn.Module):
    def __init__(self, T):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(T, T)).view(1, 1, T, T))
        self.proj = nn.Linear(8, 5, bias=False)

    def forward(self, q, k, v, a, b):
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
        att = att.masked_fill(self.mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        t = (q @ k.transpose(-2, -1)).transpose(-2, -1) * 2.0 + 1.0
        z = torch.bmm(a, b) - 0.5
        p = self.proj(v[0])  # [4, 16, 8] @ [8, 5]^T: an mm on the flattened rows, viewed back
        return y, t, z, p


def make():
    torch.manual_seed(0)
    B, H, T, D = 2, 4, 16, 8
    q, k, v = torch.randn(B, H, T, D), torch.randn(B, H, T, D), torch.randn(B, H, T, D)
    q[0, 1, 5, 3] = float("nan")
    k[1, 2, 7, 0] = float("inf")
    v[1, 3, 2, 4] = float("-inf")
    a, b = torch.randn(3, 20, 12), torch.randn(3, 12, 9)
    a[2, 4, 5] = float("inf")
    return M(T), (q, k, v, a, b)
