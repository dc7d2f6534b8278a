# Feed-forward layers in training (issue 13): Linear -> GELU (erf) -> Linear -> Linear -> GELU (tanh) ->
# Linear -> a SwiGLU MLP (Llama's: down(silu(gate(x)) * up(x))). Each activation's backward
# recomputes its erf/tanh/sigmoid from the saved pre-activation and multiplies it into the mm's
# epilogue; that recomputation runs inside the mm's kernel (sched/epilogue_inputs.go). The
# activations hold over 1 MiB, so that the
# partition saves them for the weight gradients (stages/partition.go, gemmOperand) as at
# real sizes, and the recomputation has no other reader. Sizes are not multiples of a vector
# width; inputs include large, tiny and -0 values.
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/gelu_ffn_train.py \
#         -o runner/testdata/gelu_ffn_train.json --seed 0
import torch
import torch.nn.functional as F
from torch import nn

NAME = "gelu_ffn_train"
TRAIN = True


class SwiGLU(nn.Module):
    def __init__(self, d, hidden, out):
        super().__init__()
        self.gate = nn.Linear(d, hidden, bias=False)
        self.up = nn.Linear(d, hidden, bias=False)
        self.down = nn.Linear(hidden, out, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


def make():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 1001), nn.GELU(), nn.Linear(1001, 19), nn.Linear(19, 1003),
                          nn.GELU(approximate="tanh"), nn.Linear(1003, 17), SwiGLU(17, 1002, 7))
    x = torch.randn(264, 20) * 3
    x[0, :4] = torch.tensor([-0.0, 1e-30, 40.0, -40.0])
    return model, (x,)
