# Convolution backward and 2-D pooling, forward and backward, in training, for the GPU dialects'
# kernels (render/simt_convpool.go; runner TestOpenCLConvPoolKernels): every conv and pool node
# must be a device kernel (no host fallback) and match PyTorch. Covered: a grouped conv with
# stride, asymmetric padding, dilation and a non-square kernel; a depthwise conv (groups = C) with
# stride 2; a 1x1 conv without bias; a conv whose stride exceeds its dilated window (input
# elements no tap reaches: their gradient is 0); a 16->32 conv with 512 (out, in) channel pairs,
# whose weight gradient takes the GPU's one-block-per-pair kernel (the others one block per
# weight element); max_pool2d with padding, ceil_mode, dilation and a
# NaN in its input (the last NaN of a window wins, its gradient goes there); avg_pool2d with
# ceil_mode and count_include_pad False, count_include_pad True, divisor_override; adaptive average
# pools whose cells overlap (sizes not divisible) and a global one. Each result is multiplied by a
# fixed tensor of distinct weights, so a gradient sent to the wrong place shows.
#
#     /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/models/gpu_convpool_train.py \
#         -o runner/testdata/gpu_convpool_train.json --seed 0 --runs 0
import torch
import torch.nn.functional as F
from torch import nn

NAME = "gpu_convpool_train"
TRAIN = True


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.g = nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)
        self.dw = nn.Conv2d(6, 6, 3, stride=2, padding=1, groups=6)
        self.pw = nn.Conv2d(6, 8, 1, bias=False)
        self.sk = nn.Conv2d(4, 5, 2, stride=3, padding=1, dilation=1)
        self.big = nn.Conv2d(4, 16, 3, padding=1)
        self.wide = nn.Conv2d(16, 32, (3, 2), stride=(1, 2), padding=(2, 1), dilation=(2, 1))
        q = torch.randn(2, 3, 9, 10)
        q[0, 1, 2, 3] = float("nan")
        q[0, 1, 2, 4] = float("nan")
        q[1, 2, 4, 4] = float("-inf")
        self.q = nn.Parameter(q)
        with torch.no_grad():
            for i, y in enumerate(self.outs(torch.zeros(2, 4, 11, 9))):
                self.register_buffer("k%d" % i, torch.linspace(0.5, 1.5, y.numel()).reshape(y.shape))

    def outs(self, x):
        a = self.g(x)
        d = self.dw(torch.relu(a))
        b = self.big(x)
        return [
            F.max_pool2d(a, 3, stride=2, padding=1, ceil_mode=True),
            F.max_pool2d(b, (2, 3), stride=(1, 2), padding=(1, 1), dilation=(2, 1)),
            F.max_pool2d(self.q, 3, stride=2, padding=1),
            F.avg_pool2d(d, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
            F.avg_pool2d(a, 2, stride=1, padding=1, count_include_pad=True),
            F.avg_pool2d(b, 3, stride=2, divisor_override=5),
            F.adaptive_avg_pool2d(self.pw(d), (2, 3)),
            F.adaptive_avg_pool2d(b, (4, 5)),
            F.adaptive_avg_pool2d(self.sk(x), 1),
            F.max_pool2d(self.wide(b), 2, stride=1),
        ]

    def forward(self, x):
        return tuple(y * getattr(self, "k%d" % i) for i, y in enumerate(self.outs(x)))


def make():
    return M(), (torch.randn(2, 4, 11, 9),)
