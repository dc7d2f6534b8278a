# A language model's tied embedding in training (issue 13): the LM head is the token
# embedding, so the table's gradient is the head's weight gradient (an mm) plus the
# embedding's scatter_add of zeros. The mm writes the sum's buffer and the scatter_add adds
# only the rows its ids name (render/scatter_gemm.go). Ids repeat (11 distinct ids in 39
# positions, each row's additions summed in index order) and most rows get none; the width
# (70) is one block of 64 columns and a remainder.
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/tied_embed_grad.py \
#         -o runner/testdata/tied_embed_grad.json --seed 0
import torch
import torch.nn.functional as F
from torch import nn

NAME = "tied_embed_grad"
TRAIN = True

V, D = 37, 70


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(V, D)
        self.ln = nn.LayerNorm(D)
        self.head = nn.Linear(D, V, bias=False)
        self.head.weight = self.wte.weight

    def forward(self, idx, tgt):
        x = self.ln(self.wte(idx) * 3)
        logits = self.head(x)
        return F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1))


def make():
    torch.manual_seed(0)
    idx = torch.randint(0, 11, (3, 13))
    tgt = torch.randint(0, V, (3, 13))
    return M(), (idx, tgt)
