#!/usr/bin/env python3
"""Evidence for conformance/xfail.tsv (TestXFailEvidence runs it with the system PyTorch).

PyTorch 1.13's CPU fmod, remainder and floor division (ATen BinaryOpsKernel.cpp) run the same inputs
through two paths: Vectorized lanes, 32 bfloat16 elements at a time (Vectorized<float>::fmod on the
widened halves), and a scalar loop for the tail (std::fmod in float). Where the float quotient |a/b|
overflows, the lanes give NaN and the tail the exact value. The same element at a lane position and at
a tail position of the same kind of tensor therefore differs, so PyTorch's value there is not the op's:
float64 agrees with the tail (and with gcdbg). Prints one line per check; exits 1 if one fails.
"""
import math
import sys

import torch

torch.set_num_threads(1)
ok = True


def check(name, cond, detail):
    global ok
    ok = ok and cond
    print("%s %s: %s" % ("ok  " if cond else "FAIL", name, detail))


def same(x, y):
    return (math.isnan(x) and math.isnan(y)) or (x == y and math.copysign(1, x) == math.copysign(1, y))


b = torch.tensor(1.1755e-38, dtype=torch.bfloat16)  # the OpInfo samples' tiny divisor (bfloat16/3, /5)
ops = {
    "fmod": lambda a, d: torch.fmod(a, d),
    "remainder": lambda a, d: torch.remainder(a, d),
    "div.floor_rounding": lambda a, d: torch.div(a, d, rounding_mode="floor"),
}
for name, f in ops.items():
    lanes = f(torch.full((32,), -4.9375, dtype=torch.bfloat16), b)  # one full 32-element vector step
    tail = f(torch.full((31,), -4.9375, dtype=torch.bfloat16), b)   # shorter than a step: the scalar loop
    mixed = f(torch.full((40,), -4.9375, dtype=torch.bfloat16), b)  # 32 lanes, then an 8-element tail
    f64 = f(torch.tensor(-4.9375, dtype=torch.float64), b.double()).item()
    f64_bf16 = torch.tensor(f64, dtype=torch.float64).to(torch.bfloat16).item()
    check(name + " lanes", all(math.isnan(v) for v in lanes.float().tolist()), "32 elements: %s" % lanes[0].item())
    check(name + " tail", all(same(v, f64_bf16) for v in tail.float().tolist()),
          "31 elements: %s; float64 %r (as bfloat16 %r)" % (tail[0].item(), f64, f64_bf16))
    check(name + " one tensor", math.isnan(mixed[0].item()) and same(mixed[-1].item(), f64_bf16),
          "40 equal elements: [0] %s, [39] %s" % (mixed[0].item(), mixed[-1].item()))

# remainder's gradient wrt the divisor, -grad * floor(a / b): NaN in the lanes, +Inf in the tail
for n in (32, 31):
    a = torch.full((n,), -4.9375, dtype=torch.bfloat16)
    d = b.expand(n).clone().requires_grad_()
    torch.remainder(a, d).sum().backward()
    g = d.grad[0].item()
    check("remainder grad %d" % n, math.isnan(g) if n == 32 else g == math.inf, "d/d(divisor) %s" % g)
sys.exit(0 if ok else 1)
