# Gathers that copy whole rows into an output of 4 MB or more (issue 13; render/gather_stream.go):
# the row loop has a second form, chosen by measurement, that checks the id and the row's ends
# once and writes the row with streaming stores. Rows of 256 floats (1 KB: whole 64-byte lines)
# and of 1003 floats (4,012 bytes: every row starts and ends off a line, so the plain copies
# before and after the streamed part run too). The tables hold NaN, +Inf and -Inf; each
# gathered tensor is read by a GEMM (so the 4 MB intermediates are not stored in the trace),
# whose result has NaN/Inf exactly in the columns of the rows that were gathered with them.
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/gather_stream.py \
#         -o runner/testdata/gather_stream.json --seed 0 --runs 0
import torch
from torch import nn

NAME = "gather_stream"


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Embedding(100, 256)
        self.b = nn.Embedding(50, 1003)
        with torch.no_grad():
            self.a.weight[7, 3] = float("nan")
            self.a.weight[9, 10] = float("inf")
            self.b.weight[4, 1002] = float("-inf")
            self.b.weight[5, 0] = float("nan")

    def forward(self, ia, ib, s, u):
        ea = self.a(ia)  # [64, 64, 256]: 4 MB
        eb = self.b(ib)  # [1100, 1003]: 4.4 MB
        return ea.reshape(-1, 256).t() @ s, eb.t() @ u


def make():
    torch.manual_seed(0)
    ia = torch.randint(10, 100, (64, 64))
    ia[5, 6] = 7
    ia[60, 2] = 9
    ib = torch.randint(6, 50, (1100,))
    ib[17] = 4
    ib[1000] = 5
    return M(), (ia, ib, torch.randn(4096, 2), torch.randn(1100, 2))
