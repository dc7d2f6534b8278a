"""Average pooling's edge geometries in training, from one Conv2d's output (8 x 8 x 33 x 95): padding
with count_include_pad, a kernel smaller than its stride (columns no window holds), a non-square
window with ceil_mode and count_include_pad=False, divisor_override, and AvgPool1d over a transposed
(non-contiguous) view. Forward windows are summed by vector loops over the interior columns and one
by one at the ends; the backward gathers each input's gradient from its windows
(render/avgpool2d.go): every gradient must still be PyTorch's."""
import torch
import torch.nn as nn

NAME = "avg_pool_edges"
TRAIN = True


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 8, 3, padding=1)
        self.pools = nn.ModuleList([
            nn.AvgPool2d(3, stride=2, padding=1),
            nn.AvgPool2d(2, stride=3),
            nn.AvgPool2d((3, 2), stride=(1, 2), padding=(1, 1), ceil_mode=True, count_include_pad=False),
            nn.AvgPool2d(3, stride=2, padding=1, divisor_override=5),
        ])
        self.p1d = nn.AvgPool1d(5, stride=3, padding=2)

    def forward(self, x):
        h = self.c(x)
        outs = [p(h) for p in self.pools]
        outs.append(self.p1d(h.flatten(2).transpose(1, 2)))
        return sum((o * o).mean() for o in outs)


def make():
    return Net(), (torch.randn(8, 3, 33, 95),)
