#!/usr/bin/python3
"""Generate nn_cases.json: PyTorch reference cases for tensor/linalg.go,
conv.go and nn.go. Run with the system python that has torch:

    /usr/bin/python3 tensor/testdata/gen_nn.py

Each case: {"name", "op", "inputs": [tensor|null], "params": {...},
"outputs": [tensor]} or "error": true when PyTorch rejects the inputs.
A tensor is {"dtype", "shape", "data"} with data flat, non-finite values
as the strings "inf", "-inf", "nan".
"""
import inspect
import json
import math
import os

import torch
import torch.nn.functional as F

torch.manual_seed(0)
f32, f64, i64 = torch.float32, torch.float64, torch.int64
NAMES = {f32: "float32", f64: "float64", i64: "int64", torch.int32: "int32"}


def enc_val(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def enc(t):
    if t is None:
        return None
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape),
            "data": [enc_val(v) for v in t.reshape(-1).tolist()]}


cases = []


def case(name, op, fn, inputs, **params):
    c = {"name": name, "op": op, "inputs": [enc(t) for t in inputs], "params": params}
    args = inputs
    try:
        sig = inspect.signature(fn)
        npos = sum(1 for q in sig.parameters.values()
                   if q.default is q.empty and q.kind == q.POSITIONAL_OR_KEYWORD)
        args = inputs[:npos]
    except (ValueError, TypeError):
        pass
    try:
        out = fn(*args)
    except (RuntimeError, ValueError, IndexError) as e:
        c["error"] = True
        c["torch_error"] = str(e).split("\n")[0][:200]
    else:
        c["outputs"] = [enc(out)]
    cases.append(c)


def r(*shape, dt=f32):
    return torch.randn(*shape, dtype=dt)


# ---- matmul family ----
mm_shapes = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
    ((2, 2, 3), (3, 4)), ((3,), (2, 3, 4)), ((2, 2, 3), (3,)), ((2, 3), (2, 3, 4)),
    ((2, 1, 2, 3), (3, 3, 2)), ((1, 2, 3), (4, 3, 2)), ((2, 2, 3), (2, 3, 2)),
    ((0, 3), (3, 2)), ((2, 0), (0, 3)),
    ((3,), (4,)), ((2, 3), (4, 5)), ((2, 2, 3), (3, 3, 2)), ((2, 3), (4,)), ((3,), (4, 2)),
]
for sa, sb in mm_shapes:
    case(f"matmul_{sa}_{sb}", "matmul", torch.matmul, [r(*sa), r(*sb)])
case("matmul_f64", "matmul", torch.matmul, [r(2, 3, 4, dt=f64), r(4, 5, dt=f64)])
case("matmul_i64", "matmul", torch.matmul, [torch.randint(-5, 5, (2, 3)), torch.randint(-5, 5, (3, 2))])
case("matmul_0d", "matmul", torch.matmul, [torch.tensor(2.0), r(3)])
case("matmul_inf", "matmul", torch.matmul, [torch.tensor([[1.0, float("inf")], [0.0, 1.0]]), r(2, 2)])
case("mm", "mm", torch.mm, [r(3, 4), r(4, 2)])
case("mm_bad", "mm", torch.mm, [r(8, 6), r(5, 2)])
case("mm_3d", "mm", torch.mm, [r(2, 3, 4), r(4, 2)])
case("bmm", "bmm", torch.bmm, [r(2, 3, 4), r(2, 4, 5)])
case("bmm_batch_mismatch", "bmm", torch.bmm, [r(2, 3, 4), r(3, 4, 5)])
case("bmm_2d", "bmm", torch.bmm, [r(3, 4), r(4, 5)])
case("outer", "outer", torch.outer, [r(3), r(4)])
for beta, alpha in [(1.0, 1.0), (0.5, 2.0), (0.0, 1.5)]:
    case(f"addmm_b{beta}_a{alpha}", "addmm", lambda c, a, b: torch.addmm(c, a, b, beta=beta, alpha=alpha),
         [r(3, 5), r(3, 4), r(4, 5)], beta=beta, alpha=alpha)
case("addmm_bias1d", "addmm", lambda c, a, b: torch.addmm(c, a, b, beta=2.0, alpha=1.0),
     [r(5), r(3, 4), r(4, 5)], beta=2.0, alpha=1.0)
case("addmm_beta0_nan", "addmm", lambda c, a, b: torch.addmm(c, a, b, beta=0.0, alpha=1.0),
     [torch.full((3, 5), float("nan")), r(3, 4), r(4, 5)], beta=0.0, alpha=1.0)
case("addmm_bad_bias", "addmm", lambda c, a, b: torch.addmm(c, a, b),
     [r(4), r(3, 4), r(4, 5)], beta=1.0, alpha=1.0)
case("baddbmm", "baddbmm", lambda c, a, b: torch.baddbmm(c, a, b, beta=0.5, alpha=-1.0),
     [r(1, 3, 5), r(2, 3, 4), r(2, 4, 5)], beta=0.5, alpha=-1.0)
case("linear_bias", "linear", F.linear, [r(4, 6), r(3, 6), r(3)])
case("linear_nobias", "linear", F.linear, [r(2, 4, 6), r(3, 6), None])
case("linear_1d", "linear", F.linear, [r(6), r(3, 6), r(3)])
case("linear_f64", "linear", F.linear, [r(2, 5, dt=f64), r(3, 5, dt=f64), r(3, dt=f64)])
case("linear_bad", "linear", F.linear, [r(8, 7), r(10, 6), None])

# ---- conv2d ----
def conv(stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    pad = padding if isinstance(padding, str) else tuple(padding)
    return lambda x, w, b: F.conv2d(x, w, b, stride, pad, dilation, groups)


conv_cases = [
    ("basic", (2, 3, 7, 6), (4, 3, 3, 3), True, {}),
    ("nobias", (1, 2, 5, 5), (3, 2, 2, 3), False, {}),
    ("stride2", (1, 3, 8, 7), (2, 3, 3, 3), True, dict(stride=[2, 2])),
    ("stride_pad", (2, 2, 7, 7), (3, 2, 3, 2), True, dict(stride=[2, 3], padding=[1, 2])),
    ("dilation", (1, 2, 9, 8), (2, 2, 3, 3), True, dict(dilation=[2, 3], padding=[2, 1])),
    ("groups2", (1, 4, 6, 6), (6, 2, 3, 3), True, dict(groups=2, padding=[1, 1])),
    ("depthwise", (2, 3, 6, 5), (6, 1, 3, 3), True, dict(groups=3, stride=[1, 2], padding=[1, 1])),
    ("1x1", (2, 4, 3, 3), (5, 4, 1, 1), True, {}),
    ("unbatched", (3, 6, 6), (2, 3, 3, 3), True, dict(padding=[1, 0])),
    ("same_odd", (1, 2, 6, 7), (3, 2, 3, 3), True, dict(padding="same")),
    ("same_even", (1, 2, 6, 7), (3, 2, 4, 2), True, dict(padding="same", dilation=[1, 1])),
    ("same_dil", (1, 2, 8, 7), (3, 2, 2, 3), False, dict(padding="same", dilation=[3, 2])),
    ("valid", (1, 2, 6, 7), (3, 2, 3, 3), True, dict(padding="valid", stride=[2, 1])),
    ("err_channels", (1, 5, 6, 6), (3, 3, 3, 3), True, {}),
    ("err_groups", (1, 4, 6, 6), (3, 2, 3, 3), True, dict(groups=2)),
    ("err_kernel_big", (1, 1, 2, 2), (1, 1, 3, 3), False, {}),
    ("err_same_strided", (1, 1, 5, 5), (1, 1, 3, 3), False, dict(padding="same", stride=[2, 2])),
    ("err_bias", (1, 1, 5, 5), (2, 1, 3, 3), None, {}),
    ("err_2d", (5, 5), (2, 1, 3, 3), False, {}),
]
for name, xs, ws, bias, p in conv_cases:
    x, w = r(*xs), r(*ws)
    b = r(ws[0]) if bias else (r(3) if bias is None else None)
    params = dict(stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1)
    params.update(p)
    case("conv2d_" + name, "conv2d", conv(**{k: v for k, v in params.items()}), [x, w, b], **params)
case("conv2d_f64", "conv2d", conv(padding=(1, 1)), [r(1, 2, 5, 5, dt=f64), r(3, 2, 3, 3, dt=f64), r(3, dt=f64)],
     stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1)

# ---- pooling ----
def mp(kernel, stride, padding, dilation, ceil):
    return lambda x: F.max_pool2d(x, kernel, stride if any(stride) else None, padding, dilation, ceil_mode=ceil)


xnan = r(1, 2, 5, 5)
xnan[0, 0, 1, 1] = float("nan")
xnan[0, 1, 4, 4] = float("-inf")
pool_inputs = {"a": r(2, 3, 7, 6), "b": r(1, 2, 5, 5), "u": r(2, 6, 5), "n": xnan}
mp_cases = [
    ("k2", "a", [2, 2], [0, 0], [0, 0], [1, 1], False),
    ("k3s2", "a", [3, 3], [2, 2], [0, 0], [1, 1], False),
    ("k3s2_ceil", "a", [3, 3], [2, 2], [0, 0], [1, 1], True),
    ("k3s2p1_ceil", "b", [3, 3], [2, 2], [1, 1], [1, 1], True),
    ("k2s2p1_ceil", "b", [2, 2], [2, 2], [1, 1], [1, 1], True),
    ("pad", "a", [3, 2], [1, 2], [1, 1], [1, 1], False),
    ("dil", "a", [2, 3], [1, 1], [1, 1], [2, 2], False),
    ("dil_ceil", "a", [2, 2], [2, 3], [1, 0], [2, 1], True),
    ("unbatched", "u", [2, 2], [0, 0], [0, 0], [1, 1], True),
    ("nan", "n", [2, 2], [1, 1], [0, 0], [1, 1], False),
    ("err_pad", "b", [2, 2], [0, 0], [2, 2], [1, 1], False),
    ("err_small", "b", [6, 6], [0, 0], [0, 0], [1, 1], False),
]
for name, xi, k, s, p, d, cm in mp_cases:
    case("max_pool2d_" + name, "max_pool2d", mp(k, s, p, d, cm), [pool_inputs[xi]],
         kernel=k, stride=s, padding=p, dilation=d, ceil_mode=cm)


def ap(kernel, stride, padding, ceil, cip, div):
    return lambda x: F.avg_pool2d(x, kernel, stride if any(stride) else None, padding, ceil, cip, div or None)


ap_cases = [
    ("k2", "a", [2, 2], [0, 0], [0, 0], False, True, 0),
    ("k3s2p1", "a", [3, 3], [2, 2], [1, 1], False, True, 0),
    ("k3s2p1_nopad", "a", [3, 3], [2, 2], [1, 1], False, False, 0),
    ("k3s2p1_ceil", "b", [3, 3], [2, 2], [1, 1], True, True, 0),
    ("k3s2p1_ceil_nopad", "b", [3, 3], [2, 2], [1, 1], True, False, 0),
    ("k2s2_ceil", "b", [2, 2], [2, 2], [0, 0], True, True, 0),
    ("divisor", "a", [3, 2], [1, 2], [1, 1], False, True, 5),
    ("unbatched", "u", [3, 3], [1, 1], [1, 0], True, False, 0),
    ("err_pad", "b", [2, 2], [0, 0], [2, 0], False, True, 0),
]
for name, xi, k, s, p, cm, cip, div in ap_cases:
    case("avg_pool2d_" + name, "avg_pool2d", ap(k, s, p, cm, cip, div), [pool_inputs[xi]],
         kernel=k, stride=s, padding=p, ceil_mode=cm, count_include_pad=cip, divisor_override=div)

for name, xs, o in [("div", (1, 2, 6, 4), [3, 2]), ("nondiv", (2, 2, 7, 5), [3, 4]),
                    ("up", (1, 1, 3, 2), [5, 3]), ("one", (1, 3, 5, 5), [1, 1]), ("unbatched", (2, 5, 7), [2, 3])]:
    case("adaptive_avg_pool2d_" + name, "adaptive_avg_pool2d", lambda x, o=o: F.adaptive_avg_pool2d(x, o),
         [r(*xs)], out=o)

# ---- softmax ----
xs = r(3, 4, 5)
xs[0, 1, :] = float("-inf")
xs[1, :, 2] = float("-inf")
xs[2, 0, 0] = float("-inf")
for dim in [0, 1, 2, -1]:
    case(f"softmax_dim{dim}", "softmax", lambda x, d=dim: torch.softmax(x, d), [xs], dim=dim)
    case(f"log_softmax_dim{dim}", "log_softmax", lambda x, d=dim: torch.log_softmax(x, d), [xs], dim=dim)
big = torch.tensor([[1000.0, 1001.0, 999.0], [-1000.0, -1002.0, -1001.0]])
case("softmax_big", "softmax", lambda x: torch.softmax(x, 1), [big], dim=1)
case("log_softmax_big", "log_softmax", lambda x: torch.log_softmax(x, 1), [big], dim=1)
case("softmax_f64", "softmax", lambda x: torch.softmax(x, 0), [r(4, 3, dt=f64)], dim=0)
case("softmax_0d", "softmax", lambda x: torch.softmax(x, 0), [torch.tensor(2.5)], dim=0)
case("softmax_bad_dim", "softmax", lambda x: torch.softmax(x, 3), [r(2, 3)], dim=3)

# ---- normalization ----
case("layer_norm_1", "layer_norm", lambda x, w, b: F.layer_norm(x, [5], w, b, 1e-5),
     [r(2, 3, 5), r(5), r(5)], normalized_shape=[5], eps=1e-5)
case("layer_norm_2_noaffine", "layer_norm", lambda x: F.layer_norm(x, [3, 5], None, None, 1e-5),
     [r(2, 3, 5), None, None], normalized_shape=[3, 5], eps=1e-5)
case("layer_norm_2", "layer_norm", lambda x, w, b: F.layer_norm(x, [3, 4], w, b, 1e-3),
     [r(2, 3, 4), r(3, 4), r(3, 4)], normalized_shape=[3, 4], eps=1e-3)
case("layer_norm_wonly", "layer_norm", lambda x, w: F.layer_norm(x, [6], w, None, 1e-5),
     [r(4, 6), r(6), None], normalized_shape=[6], eps=1e-5)
case("layer_norm_f64", "layer_norm", lambda x, w, b: F.layer_norm(x, [4], w, b, 1e-5),
     [r(3, 4, dt=f64), r(4, dt=f64), r(4, dt=f64)], normalized_shape=[4], eps=1e-5)
case("layer_norm_bad", "layer_norm", lambda x: F.layer_norm(x, [4]), [r(2, 3), None, None],
     normalized_shape=[4], eps=1e-5)
for name, xs_ in [("2d", (4, 3)), ("4d", (2, 3, 4, 2)), ("3d", (2, 3, 5))]:
    x = r(*xs_)
    rm, rv = r(3), torch.rand(3) + 0.5
    case("batch_norm_" + name, "batch_norm",
         lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, False, 0.1, 1e-5),
         [x, rm, rv, r(3), r(3)], eps=1e-5)
case("batch_norm_noaffine", "batch_norm", lambda x, m, v: F.batch_norm(x, m, v, None, None, False, 0.1, 1e-3),
     [r(2, 3, 2, 2), r(3), torch.rand(3) + 0.5, None, None], eps=1e-3)
case("batch_norm_bad", "batch_norm", lambda x, m, v: F.batch_norm(x, m, v, None, None, False),
     [r(2, 3, 2, 2), r(4), torch.rand(4), None, None], eps=1e-5)

# ---- embedding ----
ew = r(10, 4)
case("embedding", "embedding", lambda w, i: F.embedding(i, w), [ew, torch.tensor([[1, 2, 4], [4, 3, 9]])], padding_idx=-1)
case("embedding_pad", "embedding", lambda w, i: F.embedding(i, w, padding_idx=0), [ew, torch.tensor([0, 2, 0, 5])], padding_idx=0)
case("embedding_scalar", "embedding", lambda w, i: F.embedding(i, w), [ew, torch.tensor(7)], padding_idx=-1)
case("embedding_oob", "embedding", lambda w, i: F.embedding(i, w), [ew, torch.tensor([1, 12])], padding_idx=-1)
case("embedding_neg", "embedding", lambda w, i: F.embedding(i, w), [ew, torch.tensor([-1])], padding_idx=-1)

# ---- losses ----
lp2 = torch.log_softmax(r(5, 4), 1)
t2 = torch.tensor([0, 3, 1, -100, 2])
t2i = torch.tensor([0, 3, 1, 1, 2])
w4 = torch.rand(4) + 0.2
lp3 = torch.log_softmax(r(2, 3, 4), 1)
t3 = torch.tensor([[0, 2, 1, 1], [2, 1, -100, 0]])
lp1 = torch.log_softmax(r(4), 0)
lp4 = torch.log_softmax(r(2, 3, 2, 2), 1)
t4 = torch.randint(0, 3, (2, 2, 2))
for red in ["mean", "sum", "none"]:
    for wname, w in [("", None), ("_w", w4)]:
        case(f"nll_{red}{wname}", "nll_loss", lambda a, t, w, red=red: F.nll_loss(a, t, w, reduction=red),
             [lp2, t2, w], reduction=red, ignore_index=-100)
    case(f"nll_{red}_ign1", "nll_loss", lambda a, t, w, red=red: F.nll_loss(a, t, w, ignore_index=1, reduction=red),
         [lp2, t2i, w4], reduction=red, ignore_index=1)
    case(f"nll_{red}_3d", "nll_loss", lambda a, t, red=red: F.nll_loss(a, t, reduction=red),
         [lp3, t3, None], reduction=red, ignore_index=-100)
    case(f"nll_{red}_4d_w", "nll_loss", lambda a, t, w, red=red: F.nll_loss(a, t, w[:3], reduction=red),
         [lp4, t4, w4[:3]], reduction=red, ignore_index=-100)
    case(f"nll_{red}_1d", "nll_loss", lambda a, t, red=red: F.nll_loss(a, t, reduction=red),
         [lp1, torch.tensor(2), None], reduction=red, ignore_index=-100)
case("nll_all_ignored", "nll_loss", lambda a, t: F.nll_loss(a, t), [lp2[:2], torch.tensor([-100, -100]), None],
     reduction="mean", ignore_index=-100)
case("nll_oob", "nll_loss", lambda a, t: F.nll_loss(a, t), [lp2, torch.tensor([0, 1, 4, 0, 0]), None],
     reduction="mean", ignore_index=-100)
case("nll_batch_mismatch", "nll_loss", lambda a, t: F.nll_loss(a, t), [lp2, torch.tensor([0, 1]), None],
     reduction="mean", ignore_index=-100)
case("nll_bad_weight", "nll_loss", lambda a, t, w: F.nll_loss(a, t, w), [lp2, t2i, torch.rand(3)],
     reduction="mean", ignore_index=-100)

lg2, lg3 = r(5, 4), r(2, 3, 4)
probs = torch.softmax(r(5, 4), 1)
for red in ["mean", "sum", "none"]:
    for ls in [0.0, 0.2]:
        for wname, w in [("", None), ("_w", w4)]:
            case(f"ce_{red}_ls{ls}{wname}", "cross_entropy",
                 lambda a, t, w, red=red, ls=ls: F.cross_entropy(a, t, w, reduction=red, label_smoothing=ls),
                 [lg2, t2, w], reduction=red, ignore_index=-100, label_smoothing=ls)
            case(f"ce_prob_{red}_ls{ls}{wname}", "cross_entropy",
                 lambda a, t, w, red=red, ls=ls: F.cross_entropy(a, t, w, reduction=red, label_smoothing=ls),
                 [lg2, probs, w], reduction=red, ignore_index=-100, label_smoothing=ls)
        case(f"ce_{red}_ls{ls}_3d", "cross_entropy",
             lambda a, t, red=red, ls=ls: F.cross_entropy(a, t, reduction=red, label_smoothing=ls),
             [lg3, t3, None], reduction=red, ignore_index=-100, label_smoothing=ls)
    case(f"ce_{red}_ign_w_ls", "cross_entropy",
         lambda a, t, w, red=red: F.cross_entropy(a, t, w, ignore_index=1, reduction=red, label_smoothing=0.1),
         [lg2, t2i, w4], reduction=red, ignore_index=1, label_smoothing=0.1)
    case(f"ce_{red}_1d", "cross_entropy", lambda a, t, red=red: F.cross_entropy(a, t, reduction=red),
         [r(4), torch.tensor(1), None], reduction=red, ignore_index=-100, label_smoothing=0.0)
case("ce_prob_3d", "cross_entropy", lambda a, t: F.cross_entropy(a, t, label_smoothing=0.1),
     [lg3, torch.softmax(r(2, 3, 4), 1), None], reduction="mean", ignore_index=-100, label_smoothing=0.1)
case("ce_f64", "cross_entropy", lambda a, t: F.cross_entropy(a, t), [r(3, 4, dt=f64), torch.tensor([1, 0, 3]), None],
     reduction="mean", ignore_index=-100, label_smoothing=0.0)
case("ce_bad_ls", "cross_entropy", lambda a, t: F.cross_entropy(a, t, label_smoothing=1.5),
     [lg2, t2i, None], reduction="mean", ignore_index=-100, label_smoothing=1.5)
case("ce_batch_mismatch", "cross_entropy", lambda a, t: F.cross_entropy(a, t),
     [lg2, torch.tensor([1, 2]), None], reduction="mean", ignore_index=-100, label_smoothing=0.0)

# ---- activations ----
xa = torch.cat([r(20) * 3, torch.tensor([0.0, -30.0, 30.0, float("inf"), float("-inf"), float("nan")])])
case("gelu_none", "gelu", lambda x: F.gelu(x), [xa], approximate="none")
case("gelu_tanh", "gelu", lambda x: F.gelu(x, approximate="tanh"), [xa], approximate="tanh")
case("gelu_f64", "gelu", lambda x: F.gelu(x), [r(3, 4, dt=f64)], approximate="none")
case("silu", "silu", F.silu, [xa])
case("silu_f64", "silu", F.silu, [r(5, dt=f64)])
case("mish", "mish", F.mish, [xa])
case("hardtanh", "hardtanh", lambda x: F.hardtanh(x, -1.0, 2.0), [xa], min=-1.0, max=2.0)
case("leaky_relu", "leaky_relu", lambda x: F.leaky_relu(x, 0.1), [xa], slope=0.1)
case("dropout_eval", "dropout", lambda x: F.dropout(x, 0.3, training=False), [r(2, 3)], p=0.3, train=False)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_cases.json")
with open(out, "w") as f:
    json.dump(cases, f, separators=(",", ":"))
print(f"{len(cases)} cases, {os.path.getsize(out)} bytes -> {out}")
