#!/usr/bin/python3
"""Generate ext_cases.json: PyTorch reference cases for the op families of
ir/ops_ext.go and ir/ops_ext_nn.go. Run with the system python that has torch:

    /usr/bin/python3 ir/testdata/gen_ext.py

Each case: {"op": canonical op, "args": [arg], "outputs": [tensor]} or
"error": true when PyTorch rejects the call. args are the canonical op's
positional arguments; PyTorch computes the outputs with its own public
function on the same values (the lambda beside each case).
An arg is null, a bool, an int, a float ({"f": "nan"|"inf"|"-inf"|x} so
that 2.0 stays a float), a string, {"t": tensor}, {"dtype": name} or
{"list": [arg]}. A tensor is {"dtype", "shape", "data"}, data flat.
"""
import json
import math
import os

import torch
import torch.nn.functional as F

torch.manual_seed(0)
f32, f64, i64 = torch.float32, torch.float64, torch.int64
NAMES = {f32: "float32", f64: "float64", i64: "int64", torch.int32: "int32", torch.bool: "bool"}


def enc_val(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    if isinstance(v, bool):
        return int(v)
    return v


def enc_t(t):
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape),
            "data": [enc_val(v) for v in t.reshape(-1).tolist()]}


def enc(a):
    if a is None or isinstance(a, (bool, str, int)):
        return a
    if isinstance(a, float):
        return {"f": enc_val(a)}
    if isinstance(a, torch.Tensor):
        return {"t": enc_t(a)}
    if isinstance(a, torch.dtype):
        return {"dtype": NAMES[a]}
    if isinstance(a, (list, tuple)):
        return {"list": [enc(x) for x in a]}
    raise TypeError(a)


cases = []


def case(op, fn, *args, grad=True):
    c = {"op": "aten." + op, "args": [enc(a) for a in args], "grad": grad}
    try:
        out = fn(*args)
    except (RuntimeError, ValueError, IndexError, ZeroDivisionError) as e:
        c["error"] = True
        c["torch_error"] = str(e).split("\n")[0][:200]
    else:
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        c["outputs"] = [enc_t(o) for o in outs]
    cases.append(c)


def r(*shape, dtype=f32, lo=-2.0, hi=2.0):
    return (torch.rand(*shape, dtype=f64) * (hi - lo) + lo).to(dtype)


def special(dtype=f32):
    return torch.tensor([-5.0, -3.0, -1.5, -0.25, 0.0, 0.3, 1.0, 2.9, 3.0, 7.0, 25.0, -30.0,
                         float("nan"), float("inf"), float("-inf")], dtype=dtype)


# Activations.
for dt in (f32, f64):
    x = r(3, 4, dtype=dt, lo=-5, hi=5)
    s = special(dt)
    for op, fn in [("hardswish", F.hardswish), ("hardsigmoid", F.hardsigmoid), ("mish", F.mish),
                   ("selu", F.selu), ("log_sigmoid", F.logsigmoid), ("softsign", F.softsign),
                   ("tanhshrink", F.tanhshrink)]:
        case(op, fn, x)
        case(op, fn, s, grad=False)
    case("elu", lambda x, a, sc, i: torch.ops.aten.elu(x, a, sc, i), x, 1.0, 1.0, 1.0)
    case("elu", lambda x, a, sc, i: torch.ops.aten.elu(x, a, sc, i), x, 0.5, 2.0, 1.5)
    case("elu", lambda x, a, sc, i: torch.ops.aten.elu(x, a, sc, i), s, 1.0, 1.0, 1.0, grad=False)
    case("celu", lambda x, a: F.celu(x, a), x, 0.7)
    case("celu", lambda x, a: F.celu(x, a), s, 1.0, grad=False)
    case("softplus", lambda x, b, t: F.softplus(x, b, t), x, 1, 20)
    case("softplus", lambda x, b, t: F.softplus(x, b, t), x, 2.0, 3.0)
    case("softplus", lambda x, b, t: F.softplus(x, b, t), s, 1, 20, grad=False)
    case("leaky_relu", lambda x, n: F.leaky_relu(x, n), x, 0.01)
    case("leaky_relu", lambda x, n: F.leaky_relu(x, n), s, 0.2, grad=False)
    case("hardshrink", lambda x, l: F.hardshrink(x, l), x, 0.5)
    case("softshrink", lambda x, l: F.softshrink(x, l), x, 1.5)
    case("softshrink", lambda x, l: F.softshrink(x, l), s, 0.5, grad=False)
    case("prelu", F.prelu, r(2, 3, 4, dtype=dt), r(3, dtype=dt, lo=0.05, hi=0.5))
    case("prelu", F.prelu, r(2, 3, dtype=dt), torch.tensor([0.25], dtype=dt))
    case("glu", lambda x, d: F.glu(x, d), r(2, 6, dtype=dt), -1)
    case("glu", lambda x, d: F.glu(x, d), r(4, 3, dtype=dt), 0)
case("glu", lambda x, d: F.glu(x, d), r(3, 5), 1)
case("prelu", F.prelu, r(2, 3, 4), r(2))
case("hardswish", F.hardswish, torch.tensor([1, 2, 3]), grad=False)

# Elementwise math.
for dt in (f32, f64):
    u = r(3, 4, dtype=dt, lo=-0.95, hi=0.95)
    for op in ["asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh", "erfinv"]:
        case(op, getattr(torch, op), u)
    case("acosh", torch.acosh, r(3, 4, dtype=dt, lo=1.1, hi=4))
    for op in ["log2", "log10"]:
        case(op, getattr(torch, op), r(3, 4, dtype=dt, lo=0.1, hi=5))
    case("erfinv", torch.erfinv, torch.tensor([-1.0, -0.999999, -0.99, -0.5, 0.0, 1e-6, 0.7, 0.9999, 1.0, 1.5, float("nan")], dtype=dt), grad=False)
    case("isinf", torch.isinf, special(dt), grad=False)
    case("fmod", torch.fmod, r(3, 4, dtype=dt, lo=-6, hi=6), r(4, dtype=dt, lo=0.5, hi=2))
    case("fmod", torch.fmod, r(3, 4, dtype=dt, lo=-6, hi=6), -1.5)
    case("lerp", torch.lerp, r(3, 4, dtype=dt), r(4, dtype=dt), r(3, 4, dtype=dt, lo=-0.5, hi=1.5))
    case("lerp", torch.lerp, r(3, 4, dtype=dt), r(3, 4, dtype=dt), 0.25)
    case("lerp", torch.lerp, r(3, 4, dtype=dt), r(3, 4, dtype=dt), 0.75)
    case("addcmul", lambda s, a, b, v: torch.addcmul(s, a, b, value=v), r(3, 4, dtype=dt), r(3, 1, dtype=dt), r(4, dtype=dt), 0.5)
    case("addcdiv", lambda s, a, b, v: torch.addcdiv(s, a, b, value=v), r(3, 4, dtype=dt), r(3, 4, dtype=dt), r(4, dtype=dt, lo=0.5, hi=2), -2)
    case("hypot", torch.hypot, r(3, 4, dtype=dt), r(3, 4, dtype=dt))
    case("nan_to_num", torch.nan_to_num, special(dt), 0.0, None, None, grad=False)
    case("nan_to_num", torch.nan_to_num, special(dt), 1.5, 100.0, -7.0, grad=False)
    case("round_decimals", lambda x, d: torch.round(x, decimals=d), r(3, 4, dtype=dt, lo=-50, hi=50), 2, grad=False)
    case("round_decimals", lambda x, d: torch.round(x, decimals=d), r(3, 4, dtype=dt, lo=-500, hi=500), -1, grad=False)
    case("round_decimals", lambda x, d: torch.round(x, decimals=d), r(3, 4, dtype=dt, lo=-5, hi=5), 0, grad=False)
case("fmod", torch.fmod, torch.tensor([7, -7, 5, -5]), torch.tensor([3, 3, -2, -2]), grad=False)
case("fmod", torch.fmod, torch.tensor([7, -7]), torch.tensor([0, 3]), grad=False)
case("addcdiv", lambda s, a, b, v: torch.addcdiv(s, a, b, value=v), r(3), torch.tensor([1, 2, 3]), torch.tensor([2, 2, 2]), 1, grad=False)

# Losses.
for dt in (f32, f64):
    x, t = r(4, 5, dtype=dt), r(4, 5, dtype=dt)
    for red in ("mean", "sum", "none"):
        case("mse_loss", lambda a, b, rd: F.mse_loss(a, b, reduction=rd), x, t, red)
        case("l1_loss", lambda a, b, rd: F.l1_loss(a, b, reduction=rd), x, t, red)
        case("smooth_l1_loss", lambda a, b, rd, be: F.smooth_l1_loss(a, b, reduction=rd, beta=be), x, t, red, 0.5)
        case("huber_loss", lambda a, b, rd, de: F.huber_loss(a, b, reduction=rd, delta=de), x, t, red, 0.7)
        p, y = r(4, 5, dtype=dt, lo=0.02, hi=0.98), torch.randint(0, 2, (4, 5)).to(dt)
        case("binary_cross_entropy", lambda a, b, w, rd: F.binary_cross_entropy(a, b, w, reduction=rd), p, y, None, red)
        case("binary_cross_entropy_with_logits", lambda a, b, w, rd, pw: F.binary_cross_entropy_with_logits(a, b, w, reduction=rd, pos_weight=pw), x * 4, y, None, red, None)
        lp = F.log_softmax(r(4, 5, dtype=dt), 1)
        q = F.softmax(r(4, 5, dtype=dt), 1)
        case("kl_div", lambda a, b, rd, lt: F.kl_div(a, b, reduction=rd, log_target=lt), lp, q, red, False)
        case("soft_margin_loss", lambda a, b, rd: F.soft_margin_loss(a, b, reduction=rd), x, torch.sign(t), red)
    case("smooth_l1_loss", lambda a, b, rd, be: F.smooth_l1_loss(a, b, reduction=rd, beta=be), x, t, "mean", 0.0)
    case("binary_cross_entropy", lambda a, b, w, rd: F.binary_cross_entropy(a, b, w, reduction=rd),
         r(4, 5, dtype=dt, lo=0.02, hi=0.98), r(4, 5, dtype=dt, lo=0, hi=1), r(5, dtype=dt, lo=0.5, hi=2), "mean")
    case("binary_cross_entropy", lambda a, b, w, rd: F.binary_cross_entropy(a, b, w, reduction=rd),
         torch.tensor([0.0, 1.0, 0.5], dtype=dt), torch.tensor([1.0, 0.0, 1.0], dtype=dt), None, "none", grad=False)
    case("binary_cross_entropy_with_logits", lambda a, b, w, rd, pw: F.binary_cross_entropy_with_logits(a, b, w, reduction=rd, pos_weight=pw),
         r(4, 5, dtype=dt, lo=-30, hi=30), r(4, 5, dtype=dt, lo=0, hi=1), r(4, 1, dtype=dt, lo=0.5, hi=2), "mean", r(5, dtype=dt, lo=0.5, hi=3))
    case("kl_div", lambda a, b, rd, lt: F.kl_div(a, b, reduction=rd, log_target=lt), F.log_softmax(r(4, 5, dtype=dt), 1), F.log_softmax(r(4, 5, dtype=dt), 1), "batchmean", True)
    case("kl_div", lambda a, b, rd, lt: F.kl_div(a, b, reduction=rd, log_target=lt), F.log_softmax(r(4, 5, dtype=dt), 1),
         torch.tensor([[0.0, 0.5, 0.5, 0.0, 0.0]] * 4, dtype=dt), "batchmean", False, grad=False)
case("mse_loss", lambda a, b, rd: F.mse_loss(a, b, reduction=rd), r(3), r(3), "avg")

# Scans, flips, rolls, sorting.
for dt in (f32, f64):
    x = r(3, 5, 2, dtype=dt)
    for d in (0, 1, -1):
        case("cumsum", lambda a, d, t: torch.cumsum(a, d, dtype=t), x, d, None)
        case("cumprod", lambda a, d, t: torch.cumprod(a, d, dtype=t), x, d, None)
        case("logcumsumexp", torch.logcumsumexp, x, d)
    case("logcumsumexp", torch.logcumsumexp, torch.tensor([-1000.0, 0.0, float("-inf"), 3.0, float("inf")], dtype=dt), 0, grad=False)
    case("flip", torch.flip, x, [0, 2])
    case("flip", torch.flip, x, [-2])
    case("roll", torch.roll, x, [2], [1])
    case("roll", torch.roll, x, [-1, 4], [0, 1])
    case("roll", torch.roll, x, [7], None)
    case("argsort", lambda a, d, de, st: torch.argsort(a, dim=d, descending=de), x, 1, True, False, grad=False)
case("cumsum", lambda a, d, t: torch.cumsum(a, d, dtype=t), torch.tensor([[1, 2, 3], [4, 5, 6]]), 1, None, grad=False)
case("cumsum", lambda a, d, t: torch.cumsum(a, d, dtype=t), torch.tensor([True, False, True]), 0, None, grad=False)
case("cumsum", lambda a, d, t: torch.cumsum(a, d, dtype=t), torch.tensor([1, 2, 3]), 0, f64, grad=False)
case("cumprod", lambda a, d, t: torch.cumprod(a, d, dtype=t), torch.tensor([[1, -2, 3], [0, 5, 6]]), 1, None, grad=False)
case("cumsum", lambda a, d, t: torch.cumsum(a, d, dtype=t), torch.tensor(2.5), 0, None, grad=False)
case("cumsum", lambda a, d, t: torch.cumsum(a, d, dtype=t), r(2, 3), 2, None)
case("flip", torch.flip, torch.tensor([[1, 2, 3], [4, 5, 6]]), [1], grad=False)
case("roll", torch.roll, torch.tensor([[1, 2, 3], [4, 5, 6]]), [1], [1], grad=False)

# Reductions.
for dt in (f32, f64):
    x = r(3, 4, 5, dtype=dt, lo=-3, hi=3)
    case("logsumexp", torch.logsumexp, x, [1], False)
    case("logsumexp", torch.logsumexp, x, [0, 2], True)
    case("logsumexp", torch.logsumexp, torch.tensor([[float("-inf"), float("-inf")], [1.0, float("inf")], [1000.0, 1000.0]], dtype=dt), [1], False, grad=False)
    for p in (2, 1, 3, 0.5, float("inf"), float("-inf"), 0):
        case("linalg_vector_norm", lambda a, o, d, k, t: torch.linalg.vector_norm(a, o, d, k, dtype=t), x, p, [1], False, None, grad=(p not in (0,)))
    case("linalg_vector_norm", lambda a, o, d, k, t: torch.linalg.vector_norm(a, o, d, k, dtype=t), x, 2, None, False, None)
    case("linalg_vector_norm", lambda a, o, d, k, t: torch.linalg.vector_norm(a, o, d, k, dtype=t), x, 2, [0, 2], True, None)
    case("norm", lambda a, p, d, k, t: a.norm(p, d, k, dtype=t), x, "fro", None, False, None)
    case("norm", lambda a, p, d, k, t: a.norm(p, d, k, dtype=t), x, 1, [2], True, None)
    case("norm", lambda a, p, d, k, t: a.norm(p, d, k, dtype=t), x, 2, 1, False, None)
    case("var_mean", lambda a, d, u, k, c: torch.var_mean(a, d, keepdim=k), x, [1], None, False, None)
    case("var_mean", lambda a, d, u, k, c: torch.var_mean(a, d, unbiased=u, keepdim=k), x, [0, 2], False, True, None)
    case("std_mean", lambda a, d, u, k, c: torch.std_mean(a, d, unbiased=u, keepdim=k), x, [2], True, False, None)
case("logsumexp", torch.logsumexp, torch.tensor([[1, 2], [3, 4]]), [1], False, grad=False)
case("linalg_vector_norm", lambda a, o, d, k, t: torch.linalg.vector_norm(a, o, d, k, dtype=t), torch.tensor([1, 2]), 2, None, False, None, grad=False)

# einsum.
for dt in (f32, f64):
    a, b, c = r(2, 3, 4, dtype=dt), r(2, 4, 5, dtype=dt), r(5, 3, dtype=dt)
    case("einsum", lambda e, *ops: torch.einsum(e, *ops), "bij,bjk->bik", a, b)
    case("einsum", lambda e, *ops: torch.einsum(e, *ops), "bij,bjk,kl->bil", a, b, c)
    case("einsum", lambda e, *ops: torch.einsum(e, *ops), "bij->jb", a)
    case("einsum", lambda e, *ops: torch.einsum(e, *ops), "bij,bij->", a, a)
    case("einsum", lambda e, *ops: torch.einsum(e, *ops), "ij,kl->ijkl", r(2, 3, dtype=dt), r(2, 2, dtype=dt))
    case("einsum", lambda e, *ops: torch.einsum(e, *ops), "bhqd,bhkd->bhqk", r(2, 2, 3, 4, dtype=dt), r(2, 2, 5, 4, dtype=dt))
    case("einsum", lambda e, *ops: torch.einsum(e, *ops), "ij,jk", r(3, 4, dtype=dt), r(4, 2, dtype=dt))
    case("einsum", lambda e, *ops: torch.einsum(e, *ops), "i,i->i", r(4, dtype=dt), r(1, dtype=dt))
case("einsum", lambda e, *ops: torch.einsum(e, *ops), "ij,jk->ik", r(3, 4), r(5, 2))

extra = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_ext_nn.py")
if os.path.exists(extra):
    exec(open(extra).read())

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ext_cases.json")
with open(out, "w") as f:
    json.dump(cases, f, separators=(",", ":"))
    f.write("\n")
print("wrote", len(cases), "cases to", out)
