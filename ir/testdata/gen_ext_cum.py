#!/usr/bin/python3
"""Generate ext_cases_cum.json: PyTorch reference cases for cummax and cummin
(ir/ops_cummax.go, tensor/cummax.go). Run with the system python that has torch:

    /usr/bin/python3 ir/testdata/gen_ext_cum.py

The case format and helpers are gen_ext.py's (its helper section is exec'd
here). Ties (the latest equal element's index), NaN (it sticks; each later
NaN takes the index), -inf, every dim, 0-d, empty, integer, bool and bfloat16
inputs, and PyTorch's refusals (float16 on CPU, a dim out of range).
grad=True only on tie-free float64 inputs (gradcheck by finite differences);
the gradient at ties and NaN is checked against PyTorch's by
runner/cummax_test.go (testdata/models/cummax_scan.py).
"""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "gen_ext.py")).read()
exec(src[:src.index("\n# Activations.")])
NAMES.update({torch.bfloat16: "bfloat16", torch.int8: "int8", torch.uint8: "uint8", 
              torch.float16: "float16"})

torch.manual_seed(41)
nan, inf = float("nan"), float("inf")


def perm(*shape, dtype=f32):
    n = 1
    for s in shape:
        n *= s
    return (torch.randperm(n).to(f64) * 0.37 - 3.0).reshape(*shape).to(dtype)


for op in ("cummax", "cummin"):
    fn = getattr(torch, op)
    call = lambda a, d, fn=fn: fn(a, d)
    for dt in (f32, f64):
        x = perm(3, 5, dtype=dt)
        for d in (0, 1, -1, -2):
            case(op, call, x, d)
        case(op, call, perm(2, 3, 4, dtype=dt), 1)
        case(op, call, perm(2, 3, 4, dtype=dt), 2)
        case(op, call, perm(2, 3, 4, dtype=dt).transpose(0, 2), 0)  # a non-contiguous input
        ties = torch.tensor([[1., 3., 3., 2., 3., 0.], [2., 2., 2., 2., 2., 2.], [0., -0., 0., 5., -1., 5.]], dtype=dt)
        case(op, call, ties, 1, grad=False)
        case(op, call, ties, 0, grad=False)
        nans = torch.tensor([[1., nan, 3., nan, 2.], [nan, 4., -1., 0., nan], [-inf, -inf, 2., inf, inf]], dtype=dt)
        case(op, call, nans, 1, grad=False)
        case(op, call, nans, 0, grad=False)
        case(op, call, torch.tensor([-inf, -inf, -1., -inf], dtype=dt), 0, grad=False)
        case(op, call, torch.tensor(2.5, dtype=dt), 0)
        case(op, call, torch.tensor(nan, dtype=dt), -1, grad=False)
        case(op, call, torch.zeros(0, 3, dtype=dt), 0, grad=False)
        case(op, call, torch.zeros(2, 0, dtype=dt), 1, grad=False)
        case(op, call, torch.zeros(0, dtype=dt), 0, grad=False)
    for dt in (torch.int64, torch.int32, torch.int8, torch.uint8):
        v = torch.tensor([[3, 1, 3, 7, 7, 0], [0, 0, 5, 2, 5, 9]]).to(dt)
        case(op, call, v, 1, grad=False)
        case(op, call, v, 0, grad=False)
    case(op, call, torch.tensor([-128, 127, -128, 5], dtype=torch.int8), 0, grad=False)
    case(op, call, torch.tensor([[True, False, True, True], [False, False, True, False]]), 1, grad=False)
    case(op, call, torch.tensor(7), 0, grad=False)
    case(op, call, torch.tensor([[1.5, -2., 1.5, nan, 3.]], dtype=torch.bfloat16), 1, grad=False)
    case(op, call, torch.tensor([1., 2.], dtype=torch.float16), 0, grad=False)  # "cummax_cpu" not implemented for 'Half'
    case(op, call, perm(2, 3), 2, grad=False)  # dim out of range
    case(op, call, torch.tensor(1.), 1, grad=False)  # 0-d: PyTorch 1.13 ignores dim
    case(op, call, torch.tensor(-4.), -7, grad=False)

out = os.path.join(here, "ext_cases_cum.json")
with open(out, "w") as f:
    json.dump(cases, f, separators=(",", ":"))
    f.write("\n")
print("wrote", len(cases), "cases to", out)
