"""In-place ops and writes through views, for functionalization.

Every kind of mutation the functional stage must remove: add_/relu_/
masked_fill_/sub_ on an intermediate, mul_ through a select view, setitem
with slices and an int index, a write through a transpose view, `+=`, a
fill_ through a view chain of a graph input, setitem on an input, and a
running buffer update. The mutated input and buffers are also returned, so
PyTorch's expected outputs pin their final values.
"""
import operator

import torch
from torch import nn

NAME = "mutation"

# torch 1.13's fx Proxy has no __setitem__, so `h[i] = v` cannot be traced
# as written; operator.setitem registered with torch.fx.wrap is recorded as
# a call_function operator.setitem, as newer tracers (Dynamo) record it.
# Likewise `h += y` on a Proxy falls back to `h = h + y` (no __iadd__),
# which would not mutate h; the wrapped operator.iadd keeps the mutation.
setitem = operator.setitem
iadd = operator.iadd
torch.fx.wrap("setitem")
torch.fx.wrap("iadd")


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 6)
        self.register_buffer("count", torch.zeros(1))
        self.register_buffer("stat", torch.zeros(6))

    def forward(self, x, y, m):
        self.count.add_(1)                              # a buffer counter
        h = self.lin(x)
        h.relu_()
        h.add_(y, alpha=0.5)
        v = h[1]                                        # a view of an intermediate...
        v.mul_(2)                                       # ...mutated: h changes too
        h.masked_fill_(m, -1.0)                         # v must see this
        setitem(h, (slice(None), slice(1, 3)), 0.25)    # h[:, 1:3] = 0.25
        setitem(h, (0, 2), 7.0)                         # h[0, 2] = 7.0
        t = h.t()
        t[0].sub_(1.5)                                  # a write through transpose, then select
        h = iadd(h, y)                                  # h += y
        x.view(-1)[2:5].fill_(3.0)                      # an INPUT mutated through a view chain
        setitem(x, (slice(None), 0), h[:, 0])           # x[:, 0] = h[:, 0]
        self.stat.mul_(0.9).add_(h.mean(0), alpha=0.1)  # a running statistic
        out = h * v.sum() + self.count
        # The buffers are returned as clones: the exporter restores buffers
        # after computing `expected`, which would reset a returned buffer.
        return out, v, t, x, self.count.clone(), self.stat.clone()


def make():
    x = torch.randn(4, 6)
    y = torch.randn(4, 6)
    m = torch.rand(4, 6) > 0.7
    return Model().eval(), (x, y, m)
