"""Normalizations whose float32 statistics overflow, as PyTorch 1.13 computes them on the CPU
(runner/norm_overflow_test.go). A row of 1,000 values of 1e18*randn: every square fits float32,
their sum (~1e39) does not. layer_norm's float32 Welford m2 is then +Inf, rstd = 1/sqrt(Inf) = 0
and the row is the bias; RMSNorm's mean of x.pow(2) is +Inf, its rsqrt 0 and the row 0;
group_norm (the same kernel as layer_norm) gives its bias; a plain mean of 1e36 values is +Inf
(the sum overflows before the division), and a float16 mean whose float sum passes 65504 (+Inf:
the sum is rounded to float16 before the division); a bfloat16 layer_norm overflows as float32's.
BatchNorm in training accumulates in double: finite.
The float64 reference F gives the normalized values: the float32 baseline is far from F there,
and gcdbg's own float32 runs must overflow as PyTorch's do, or a trace without PyTorch's values
is a false alarm (its eager run did the sums in float64).

(Rows whose vector-lane partial mean squares past float32's range, e.g. a row of 3e19, are NaN in
PyTorch 1.13 from Inf * 0 in its Welford merge into an empty accumulator; not here: an artefact of
its vector layout, docs/verdict.md.)

    /usr/bin/python3 exporter/gcdbg_export.py runner/testdata/norm_overflow.py \
        -o runner/testdata/norm_overflow.json --seed 0 --runs 0
"""
import torch
import torch.nn.functional as F

NAME = "norm_overflow"


def f(x, w, b, c, cw, cb, m, h, xb):
    ln = F.layer_norm(x, (1000,), w, b)
    rms = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    gn = F.group_norm(c, 2, cw, cb)
    bn = F.batch_norm(c, None, None, cw, cb, training=True)
    return ln, rms, gn, bn, m.mean(-1), m.mean(0), h.mean(-1), F.layer_norm(xb, (1000,))


def make():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 1000, generator=g)
    x[1] = torch.randn(1000, generator=g) * 1e18
    w = torch.randn(1000, generator=g)
    b = torch.randn(1000, generator=g)
    c = torch.randn(2, 4, 250, generator=g)
    c[1, :2] = torch.randn(2, 250, generator=g) * 1e18   # group 0 of sample 1; channels 0, 1 for BatchNorm
    cw = torch.randn(4, generator=g)
    cb = torch.randn(4, generator=g)
    m = torch.randn(1000, 3, generator=g)
    m[:, 1] = 1e36 + torch.randn(1000, generator=g) * 1e35   # column 1's sum overflows: Inf
    h = (torch.rand(3, 1000, generator=g) * 10 + 70).half()   # sums ~75,000: +Inf
    h[1] = h[1] / 4                                       # row 1: ~19,000 fits float16: finite
    xb = x.detach().bfloat16()                              # bfloat16 layer_norm: row 1 is 0 as in float32
    return f, (x.requires_grad_(), w.requires_grad_(), b.requires_grad_(), c.requires_grad_(),
               cw.requires_grad_(), cb.requires_grad_(), m, h, xb)
