#!/usr/bin/python3
"""Generate ext_cases_kth.json: PyTorch reference cases for kthvalue and median
(ir/ops_kth.go). Run with the system python that has torch:

    /usr/bin/python3 ir/testdata/gen_ext_kth.py

The case format and helpers are gen_ext.py's (its helper section is exec'd
here). Inputs are tie-free where indices are compared (PyTorch's index among
equal values is unspecified); NaN rows, every dim, keepdim, 0-d and integer
inputs, and PyTorch's own errors (k out of range, an empty dim) are covered.
"""
import json
import math
import os

here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "gen_ext.py")).read()
exec(src[:src.index("\n# Activations.")])

torch.manual_seed(31)

def perm(*shape, dtype=f32):
    # distinct values: a random permutation of 0..n-1, scaled
    n = 1
    for s in shape:
        n *= s
    return (torch.randperm(n).to(f64) * 0.37 - 3.0).reshape(*shape).to(dtype)

nan = float("nan")
for dt in (f32, f64):
    x = perm(3, 5, dtype=dt)
    for k, d, keep in ((1, 1, False), (3, 1, True), (5, -1, False), (2, 0, False), (3, 0, True)):
        case("kthvalue", lambda a, k, d, kd: torch.kthvalue(a, k, d, kd), x, k, d, keep)
    case("kthvalue", lambda a, k, d, kd: torch.kthvalue(a, k, d, kd), perm(2, 3, 4, dtype=dt), 2, 1, False)
    y = perm(3, 4, dtype=dt)
    y[0, 1] = nan
    y[2, 0] = nan
    y[2, 3] = nan
    case("kthvalue", lambda a, k, d, kd: torch.kthvalue(a, k, d, kd), y, 3, 1, False, grad=False)
    case("kthvalue", lambda a, k, d, kd: torch.kthvalue(a, k, d, kd), y, 4, 1, False, grad=False)
    case("median", lambda a, d, kd: torch.median(a, d, kd), perm(3, 5, dtype=dt), 1, False)
    case("median", lambda a, d, kd: torch.median(a, d, kd), perm(4, 3, dtype=dt), 0, True)
    case("median", lambda a, d, kd: torch.median(a, d, kd), perm(2, 4, 3, dtype=dt), -2, False)
    case("median", lambda a, d, kd: torch.median(a, d, kd), y, 1, False, grad=False)
    case("median", lambda a, d, kd: torch.median(a), perm(3, 4, dtype=dt), None, False)
    case("median", lambda a, d, kd: torch.median(a), perm(2, 3, dtype=dt), None, False)
    case("median", lambda a, d, kd: torch.median(a), y, None, False, grad=False)
case("kthvalue", lambda a, k, d, kd: torch.kthvalue(a, k, d, kd), torch.tensor(2.5), 1, 0, False)
case("kthvalue", lambda a, k, d, kd: torch.kthvalue(a, k, d, kd), torch.tensor([5, -2, 9, 4]), 2, 0, False, grad=False)
case("kthvalue", lambda a, k, d, kd: torch.kthvalue(a, k, d, kd), perm(2, 3), 4, 1, False)
case("kthvalue", lambda a, k, d, kd: torch.kthvalue(a, k, d, kd), perm(2, 3), 0, 1, False)
case("median", lambda a, d, kd: torch.median(a, d, kd), torch.tensor([[7, 1, 4], [0, 9, 3]]), 1, False, grad=False)
case("median", lambda a, d, kd: torch.median(a, d, kd), torch.zeros(2, 0), 1, False)
case("median", lambda a, d, kd: torch.median(a), torch.zeros(0), None, False, grad=False)

out = os.path.join(here, "ext_cases_kth.json")
with open(out, "w") as f:
    json.dump(cases, f, separators=(",", ":"))
    f.write("\n")
print("wrote", len(cases), "cases to", out)
