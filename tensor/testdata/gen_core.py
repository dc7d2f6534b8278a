#!/usr/bin/python3
"""Generates core_cases.json: reference results from real PyTorch for
tensor/core_test.go (pointwise, reductions, views, indexing, shape ops).

Run with the system python that has torch: /usr/bin/python3 gen_core.py
Each case: {name, op, inputs: [tensor spec | scalar spec | null], params,
outputs: [tensor spec]} or error: true when PyTorch rejects the input.
A tensor spec is {dtype, shape, data (flat, "nan"/"inf"/"-inf"), pre}: the
Go test builds the contiguous tensor and then applies the `pre` view ops
("t": transpose(-2,-1), "step": [..., ::2], "sl1": [1:], "perm": permute
reversed), exactly as done here before calling torch.
"""
import json
import math
import os

import numpy as np
import torch

torch.manual_seed(0)
DT = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64,
      "int32": torch.int32, "bool": torch.bool, "float16": torch.float16, "uint8": torch.uint8}
NAME = {v: k for k, v in DT.items()}
cases = []


def enc_val(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    return v


def short(v, dt):
    """Shortest decimal that rounds back to the same float32/float16 value."""
    if dt == torch.float64 or not math.isfinite(v):
        return v
    r = float(np.format_float_positional(np.float32(v), unique=True, trim="-"))
    return r if np.float32(r) == np.float32(v) else v


def enc(t):
    c = t.contiguous()
    if t.dtype.is_floating_point:
        data = [enc_val(short(float(v), t.dtype)) for v in c.reshape(-1).tolist()]
    else:
        data = [int(v) for v in c.reshape(-1).tolist()]
    return {"dtype": NAME[t.dtype], "shape": list(t.shape), "data": data}


def apply_pre(t, pre):
    for p in pre or []:
        if p == "t":
            t = t.transpose(-2, -1)
        elif p == "step":
            t = t[..., ::2]
        elif p == "sl1":
            t = t[1:]
        elif p == "perm":
            t = t.permute(*reversed(range(t.dim())))
        else:
            raise ValueError(p)
    return t


class Scalar:
    def __init__(self, v):
        self.v = v


def mk(dtype, shape, data=None, pre=None, lo=-3, hi=4):
    """A spec plus the torch tensor (after pre)."""
    dt = DT[dtype]
    n = 1
    for s in shape:
        n *= s
    if data is None:
        if dt == torch.bool:
            base = torch.randint(0, 2, (n,)).bool()
        elif dt.is_floating_point:
            base = (torch.randn(n, dtype=torch.float64) * 2).round(decimals=2).to(dt)
        else:
            base = torch.randint(lo, hi, (n,)).to(dt)
    else:
        vals = [float(v) if isinstance(v, str) else v for v in data]
        base = torch.tensor(vals, dtype=torch.float64 if dt.is_floating_point else torch.int64).to(dt)
    base = base.reshape(shape).clone()
    spec = enc(base)
    if pre:
        spec["pre"] = pre
    return spec, apply_pre(base, pre)


def spec_of(x):
    if x is None:
        return None
    if isinstance(x, Scalar):
        v = x.v
        return {"scalar": enc_val(v) if not isinstance(v, bool) else v,
                "pytype": type(v).__name__}
    return x[0]


def val_of(x):
    if x is None:
        return None
    if isinstance(x, Scalar):
        return x.v
    return x[1]


def add(name, op, inputs, params, fn):
    case = {"name": name, "op": op, "inputs": [spec_of(i) for i in inputs], "params": params}
    try:
        out = fn(*[val_of(i) for i in inputs])
    except Exception as e:  # PyTorch rejects it: the Go side must error too
        case["error"] = True
        cases.append(case)
        return
    if isinstance(out, torch.Tensor):
        out = [out]
    case["outputs"] = [enc(o) for o in out]
    cases.append(case)


def alias(a, b):
    return a.storage().data_ptr() == b.storage().data_ptr()


# ---------------------------------------------------------------- unary
UN = {
    "neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "log": torch.log, "log1p": torch.log1p,
    "expm1": torch.expm1, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "sin": torch.sin, "cos": torch.cos,
    "tan": torch.tan, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu, "erf": torch.erf,
    "reciprocal": torch.reciprocal, "gelu": torch.nn.functional.gelu,
    "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
    "silu": torch.nn.functional.silu, "floor": torch.floor, "ceil": torch.ceil, "round": torch.round,
    "trunc": torch.trunc, "sign": torch.sign, "logical_not": torch.logical_not,
    "bitwise_not": torch.bitwise_not, "isnan": torch.isnan, "square": torch.square,
}
SPECIAL = ["nan", "inf", "-inf", 0.0, -0.0, 0.5, 1.5, 2.5, -2.5, -1.0, 3.0, 1e-3, -7.25]
for f, fn in UN.items():
    for dt in ["float32", "float64", "int64", "int32", "bool"]:
        pre = ["t"] if dt == "float32" else None
        add(f"{f}_{dt}", "unary", [mk(dt, [3, 2] if dt == "float32" else [4], pre=pre)], {"f": f}, fn)
    add(f"{f}_special", "unary", [mk("float32", [13], data=SPECIAL)], {"f": f}, fn)
    # PyTorch 1.13's CPU lacks many Half kernels; the reference is the
    # float32 result rounded to half, which is what CUDA computes.
    add(f"{f}_f16", "unary", [mk("float16", [2, 2])], {"f": f},
        lambda x, fn=fn: fn(x.float()).half() if f not in ("logical_not", "isnan", "bitwise_not") else fn(x))
add("abs_intmin", "unary", [mk("int64", [2], data=[-2**63, 5])], {"f": "abs"}, torch.abs)
add("neg_int32_wrap", "unary", [mk("int32", [2], data=[-2**31, 5])], {"f": "neg"}, torch.neg)
add("square_int32_wrap", "unary", [mk("int32", [2], data=[70000, -3])], {"f": "square"}, torch.square)
add("unary_empty", "unary", [mk("float32", [0, 3])], {"f": "exp"}, torch.exp)
add("unary_0d", "unary", [mk("float32", [])], {"f": "sigmoid"}, torch.sigmoid)

# ---------------------------------------------------------------- binary
BIN = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "floor_divide": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "remainder": torch.remainder, "pow": torch.pow, "maximum": torch.maximum, "minimum": torch.minimum,
    "atan2": torch.atan2, "eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
    "ge": torch.ge, "logical_and": torch.logical_and, "logical_or": torch.logical_or,
    "logical_xor": torch.logical_xor, "bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or,
    "bitwise_xor": torch.bitwise_xor,
}
PAIRS = [("float32", "float32"), ("float32", "float64"), ("int64", "int32"), ("int32", "float32"),
         ("bool", "bool"), ("bool", "int64")]
TORCH_FN_SCALAR_OK = {"add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "eq", "ne", "lt",
                      "le", "gt", "ge", "bitwise_and",
                      "bitwise_or", "bitwise_xor"}
for f, fn in BIN.items():
    for da, db in PAIRS:
        nz = f in ("floor_divide", "remainder", "div") and not DT[db].is_floating_point
        b = mk(db, [1, 3], lo=1 if nz else -3) if not nz or db != "bool" else mk(db, [1, 3], data=[1] * 3)
        if f == "pow" and not DT[db].is_floating_point and db != "bool":
            b = mk(db, [1, 3], lo=0, hi=4)
        add(f"{f}_{da}_{db}_bcast", "binary", [mk(da, [2, 1]), b], {"f": f}, fn)
    add(f"{f}_nc", "binary", [mk("float32", [2, 3], pre=["t"]), mk("float32", [2, 1, 4], pre=["step"])],
        {"f": f}, fn)
    add(f"{f}_special", "binary", [mk("float32", [13], data=SPECIAL), mk("float32", [13], data=list(reversed(SPECIAL)))],
        {"f": f}, fn)
    # scalars: int tensor op float scalar, float tensor op int scalar, 0-dim tensors
    if f in TORCH_FN_SCALAR_OK:
        add(f"{f}_i64_pyfloat", "binary", [mk("int64", [3], lo=1), Scalar(2.5)], {"f": f}, fn)
        add(f"{f}_i32_pyint", "binary", [mk("int32", [3], lo=1), Scalar(3)], {"f": f}, fn)
        add(f"{f}_f16_pyfloat", "binary", [mk("float16", [3]), Scalar(0.1)], {"f": f}, fn)
        add(f"{f}_f32_pybool", "binary", [mk("float32", [3]), Scalar(True)], {"f": f}, fn)
    add(f"{f}_i32_0dfloat64", "binary", [mk("int32", [3], lo=1), mk("float64", [], data=[1.5])], {"f": f}, fn)
    add(f"{f}_f32_0dfloat64", "binary", [mk("float32", [3]), mk("float64", [], data=[1.25])], {"f": f}, fn)
    add(f"{f}_badbcast", "binary", [mk("float32", [3]), mk("float32", [4])], {"f": f}, fn)
add("floor_divide_int_zero", "binary", [mk("int64", [2], data=[3, 4]), mk("int64", [2], data=[1, 0])],
    {"f": "floor_divide"}, BIN["floor_divide"])
add("remainder_int_zero", "binary", [mk("int64", [2], data=[3, 4]), mk("int64", [2], data=[1, 0])],
    {"f": "remainder"}, torch.remainder)
add("remainder_int_signs", "binary", [mk("int64", [4], data=[7, -7, 7, -7]), mk("int64", [4], data=[3, 3, -3, -3])],
    {"f": "remainder"}, torch.remainder)
add("floor_divide_int_signs", "binary", [mk("int64", [4], data=[7, -7, 7, -7]), mk("int64", [4], data=[3, 3, -3, -3])],
    {"f": "floor_divide"}, BIN["floor_divide"])
add("add_int32_wrap", "binary", [mk("int32", [2], data=[2**31 - 1, 5]), mk("int32", [2], data=[1, 1])],
    {"f": "add"}, torch.add)
add("mul_int64_wrap", "binary", [mk("int64", [1], data=[2**62]), mk("int64", [1], data=[4])], {"f": "mul"}, torch.mul)
add("pow_int_negexp_tensor", "binary", [mk("int64", [4], data=[2, 1, -1, -1]), mk("int64", [4], data=[-1, -2, -3, -2])],
    {"f": "pow"}, torch.pow)
add("pow_int_negexp_scalar", "binary", [mk("int64", [2], data=[2, 3]), Scalar(-1)], {"f": "pow"}, torch.pow)
add("div_int_zero", "binary", [mk("int64", [3], data=[1, 0, -1]), mk("int64", [3], data=[0, 0, 0])], {"f": "div"}, torch.div)
add("maximum_nan", "binary", [mk("float32", [3], data=["nan", 1, 2]), mk("float32", [3], data=[0, "nan", 1])],
    {"f": "maximum"}, torch.maximum)
add("eq_promote", "binary", [mk("int32", [2], data=[16777217, 3]), mk("float32", [2], data=[16777216, 3])],
    {"f": "eq"}, torch.eq)
add("add_0d_0d", "binary", [mk("int64", [], data=[3]), mk("int32", [], data=[4])], {"f": "add"}, torch.add)
add("add_empty_bcast", "binary", [mk("float32", [0, 1]), mk("float32", [1, 3])], {"f": "add"}, torch.add)
for alpha in [2, 0.5]:
    for dt in ["float32", "int64"]:
        add(f"add_alpha_{dt}_{alpha}", "add_alpha", [mk(dt, [3]), mk(dt, [3])], {"alpha": alpha},
            lambda a, b, al=alpha: torch.add(a, b, alpha=al))

# ---------------------------------------------------------------- where/clamp/masked_fill
add("where_bcast", "where", [mk("bool", [2, 1]), mk("float32", [3]), mk("int64", [2, 3])], {}, torch.where)
add("where_scalar", "where", [mk("bool", [3]), mk("int32", [3]), Scalar(1.5)], {}, torch.where)
add("where_noncond", "where", [mk("float32", [3]), mk("int32", [3]), mk("int32", [3])], {}, torch.where)
add("where_nc", "where", [mk("bool", [3, 2], pre=["t"]), mk("float64", [2, 3]), mk("float64", [2, 1])], {}, torch.where)
add("clamp_both", "clamp", [mk("float32", [6], data=[-5, "nan", 0.5, 3, 10, "-inf"]), Scalar(-1.0), Scalar(2.0)], {},
    lambda x, a, b: torch.clamp(x, a, b))
add("clamp_int_float", "clamp", [mk("int64", [5]), Scalar(-1.5), None], {}, lambda x, a, b: torch.clamp(x, a, b))
add("clamp_int_int", "clamp", [mk("int32", [5]), None, Scalar(1)], {}, lambda x, a, b: torch.clamp(x, a, b))
add("clamp_tensor", "clamp", [mk("float32", [2, 3]), mk("float32", [3], data=[0, "nan", -1]), mk("float64", [2, 1])], {},
    lambda x, a, b: torch.clamp(x, a, b))
add("clamp_minmax_cross", "clamp", [mk("float32", [3]), Scalar(2.0), Scalar(1.0)], {}, lambda x, a, b: torch.clamp(x, a, b))
add("clamp_none", "clamp", [mk("float32", [3]), None, None], {}, lambda x, a, b: torch.clamp(x, a, b))
add("masked_fill_f", "masked_fill", [mk("float32", [2, 3]), mk("bool", [3]), mk("float64", [], data=["-inf"])], {},
    torch.masked_fill)
add("masked_fill_int", "masked_fill", [mk("int64", [2, 3], pre=["t"]), mk("bool", [3, 2]), mk("float32", [], data=[2.75])], {},
    torch.masked_fill)
add("masked_fill_bcast_x", "masked_fill", [mk("float32", [3]), mk("bool", [2, 3]), mk("float32", [], data=[9])], {},
    torch.masked_fill)
add("masked_fill_badmask", "masked_fill", [mk("float32", [3]), mk("int64", [3]), mk("float32", [], data=[9])], {},
    torch.masked_fill)
add("masked_fill_1d_value", "masked_fill", [mk("float32", [3]), mk("bool", [3]), mk("float32", [1], data=[9])], {},
    torch.masked_fill)

# ---------------------------------------------------------------- reductions
RED = {"sum": torch.sum, "mean": torch.mean, "amax": torch.amax, "amin": torch.amin, "prod": torch.prod,
       "any": torch.any, "all": torch.all}


def red_call(f, x, dims, keepdim):
    fn = RED[f]
    if f in ("sum", "mean", "amax", "amin"):
        if dims is None:
            return fn(x) if f in ("sum", "mean") else fn(x, dim=(), keepdim=keepdim)
        return fn(x, dim=dims, keepdim=keepdim)
    # prod/any/all take a single dim in 1.13
    if dims is None:
        return fn(x)
    assert len(dims) == 1
    return fn(x, dim=dims[0], keepdim=keepdim)


for f in RED:
    for dt in ["float32", "float64", "int64", "int32", "bool"]:
        for dims, kd in [(None, False), ([1], False), ([-1], True), ([0, 2], False), ([0, -1], True)]:
            if f in ("prod", "any", "all") and dims is not None and len(dims) > 1:
                continue
            pre = ["perm"] if dt == "float32" else None
            add(f"{f}_{dt}_{dims}_{kd}", "reduce", [mk(dt, [2, 3, 2], pre=pre)], {"f": f, "dims": dims, "keepdim": kd},
                lambda x, f=f, d=dims, k=kd: red_call(f, x, d, k))
    add(f"{f}_nan", "reduce", [mk("float32", [2, 3], data=[1, "nan", 2, 3, 4, 5])], {"f": f, "dims": [1], "keepdim": False},
        lambda x, f=f: red_call(f, x, [1], False))
    add(f"{f}_emptydim", "reduce", [mk("float32", [2, 0])], {"f": f, "dims": [1], "keepdim": False},
        lambda x, f=f: red_call(f, x, [1], False))
    add(f"{f}_0d", "reduce", [mk("float32", [], data=[2.5])], {"f": f, "dims": [0], "keepdim": True},
        lambda x, f=f: red_call(f, x, [0], True))
    add(f"{f}_baddim", "reduce", [mk("float32", [2, 3])], {"f": f, "dims": [2], "keepdim": False},
        lambda x, f=f: red_call(f, x, [2], False))
add("sum_dupdims", "reduce", [mk("float32", [2, 3])], {"f": "sum", "dims": [1, -1], "keepdim": False},
    lambda x: torch.sum(x, dim=[1, -1]))
add("sum_f16", "reduce", [mk("float16", [4, 3])], {"f": "sum", "dims": [0], "keepdim": False}, lambda x: torch.sum(x, 0))
add("sum_uint8", "reduce", [mk("uint8", [4, 3], lo=0, hi=200)], {"f": "sum", "dims": None, "keepdim": False}, torch.sum)
add("any_uint8", "reduce", [mk("uint8", [4, 3], lo=0, hi=2)], {"f": "any", "dims": [1], "keepdim": False},
    lambda x: torch.any(x, 1))
add("amax_empty_all", "reduce", [mk("float32", [0, 3])], {"f": "amax", "dims": None, "keepdim": False},
    lambda x: torch.amax(x))
add("sum_empty_all", "reduce", [mk("float32", [0, 3])], {"f": "sum", "dims": None, "keepdim": False}, torch.sum)
for f, fn in [("var", torch.var), ("std", torch.std)]:
    for dims, corr, kd in [(None, 1, False), ([1], 0, True), ([0, -1], 1, False), ([1], 2, False), ([0], 5, False)]:
        add(f"{f}_{dims}_{corr}_{kd}", f, [mk("float32", [3, 4], pre=["t"])], {"dims": dims, "correction": corr, "keepdim": kd},
            lambda x, fn=fn, d=dims, c=corr, k=kd: fn(x, dim=d, correction=c, keepdim=k))
    add(f"{f}_int", f, [mk("int64", [3])], {"dims": None, "correction": 1, "keepdim": False}, lambda x, fn=fn: fn(x))
    add(f"{f}_f64_single", f, [mk("float64", [1, 3])], {"dims": [0], "correction": 1, "keepdim": False},
        lambda x, fn=fn: fn(x, dim=[0], correction=1))
for f, fn in [("argmax", torch.argmax), ("argmin", torch.argmin)]:
    for dt in ["float32", "int64", "int32", "bool"]:
        for dim, kd in [(None, False), (None, True), (1, False), (-1, True), (0, False)]:
            add(f"{f}_{dt}_{dim}_{kd}", f, [mk(dt, [3, 4], lo=0, hi=3, pre=["t"] if dt == "float32" else None)],
                {"dim": dim, "keepdim": kd}, lambda x, fn=fn, d=dim, k=kd: fn(x, dim=d, keepdim=k))
    add(f"{f}_nan", f, [mk("float32", [2, 4], data=[1, "nan", 5, "nan", 3, 3, -1, -1])], {"dim": 1, "keepdim": False},
        lambda x, fn=fn: fn(x, dim=1))
    add(f"{f}_ties", f, [mk("float32", [6], data=[1, 5, 5, 0, 0, 1])], {"dim": None, "keepdim": False}, fn)
    add(f"{f}_empty", f, [mk("float32", [0])], {"dim": None, "keepdim": False}, fn)
    add(f"{f}_emptydim", f, [mk("float32", [2, 0])], {"dim": 1, "keepdim": False}, lambda x, fn=fn: fn(x, dim=1))
    add(f"{f}_0d", f, [mk("float32", [], data=[3])], {"dim": 0, "keepdim": False}, lambda x, fn=fn: fn(x, dim=0))

# ---------------------------------------------------------------- views


def view_case(name, op, inp, params, fn):
    """Record the result and whether it aliases the input's storage."""
    def wrap(x):
        out = fn(x)
        params["alias"] = alias(out, x)
        return out
    add(name, op, [inp], params, wrap)


for shp, pre, new in [([2, 3, 4], None, [6, -1]), ([2, 3, 4], ["t"], [2, 12]), ([2, 3, 4], ["t"], [6, 4]),
                      ([2, 3, 4], ["t"], [2, 3, 2, 2]), ([4, 6], ["step"], [2, 2, 3]), ([4, 6], ["step"], [12]),
                      ([3, 1, 4], ["t"], [3, 4]), ([0, 3], None, [3, 0]), ([0, 3], None, [-1, 0]), ([], None, [1, 1]),
                      ([2, 3], None, [-1, -1]), ([2, 3], None, [5]), ([2, 3], None, [-2, -3]), ([4, 6], ["sl1"], [3, 2, 3]),
                      ([2, 3, 4], ["perm"], [4, 6]), ([2, 3, 4], ["perm"], [-1])]:
    for op, fn in [("reshape", torch.reshape), ("view", lambda x, s: x.view(s))]:
        view_case(f"{op}_{shp}_{pre}_{new}", op, mk("float32", shp, pre=pre), {"shape": new}, lambda x, fn=fn, s=new: fn(x, s))
for dims in [[2, 0, 1], [-1, 0, 1], [0, 0, 1], [0, 1]]:
    view_case(f"permute_{dims}", "permute", mk("int64", [2, 3, 4]), {"dims": dims}, lambda x, d=dims: x.permute(*d))
for d0, d1 in [(0, 2), (-1, 0), (1, 3)]:
    view_case(f"transpose_{d0}_{d1}", "transpose", mk("float32", [2, 3, 4], pre=["sl1"]), {"d0": d0, "d1": d1},
              lambda x, a=d0, b=d1: x.transpose(a, b))
for shp in [[3], [2, 3], [2, 3, 4], []]:
    view_case(f"t_{shp}", "t", mk("float32", shp), {}, lambda x: x.t())
for shp, sizes in [([3, 1], [2, 3, 4]), ([3, 1], [-1, 5]), ([3], [2, -1]), ([3], [4]), ([3], [-1, 3]), ([1], [0]),
                   ([3, 1], [3]), ([], [2, 2])]:
    view_case(f"expand_{shp}_{sizes}", "expand", mk("float32", shp), {"sizes": sizes}, lambda x, s=sizes: x.expand(*s))
for d in [0, 2, -1, -3, 3]:
    view_case(f"unsqueeze_{d}", "unsqueeze", mk("float32", [2, 3], pre=["t"]), {"d": d}, lambda x, d=d: x.unsqueeze(d))
for dims in [None, [1], [0], [-1], [3]]:
    view_case(f"squeeze_{dims}", "squeeze", mk("float32", [2, 1, 3, 1]), {"dims": dims},
              lambda x, d=dims: x.squeeze() if d is None else x.squeeze(d[0]))
view_case("squeeze_0d", "squeeze", mk("float32", []), {"dims": [0]}, lambda x: x.squeeze(0))
for s, e in [(0, -1), (1, 2), (0, 0), (2, 1), (-2, -1), (0, 5)]:
    for pre in [None, ["t"]]:
        view_case(f"flatten_{s}_{e}_{pre}", "flatten", mk("float32", [2, 3, 4], pre=pre), {"start": s, "end": e},
                  lambda x, s=s, e=e: torch.flatten(x, s, e))
view_case("flatten_0d", "flatten", mk("float32", []), {"start": 0, "end": -1}, lambda x: torch.flatten(x))
for dim, idx in [(0, 1), (1, -1), (-1, 3), (0, 2), (1, -5), (3, 0)]:
    view_case(f"select_{dim}_{idx}", "select", mk("float32", [2, 3, 4], pre=["t"]), {"dim": dim, "index": idx},
              lambda x, d=dim, i=idx: x.select(d, i))
view_case("select_0d", "select", mk("float32", []), {"dim": 0, "index": 0}, lambda x: x.select(0, 0))
for dim, st, ln in [(0, 1, 2), (1, -2, 2), (1, 2, 2), (0, 0, 0), (1, 4, 0), (0, 0, -1)]:
    view_case(f"narrow_{dim}_{st}_{ln}", "narrow", mk("float32", [3, 4], pre=["t"]), {"dim": dim, "start": st, "length": ln},
              lambda x, d=dim, s=st, n=ln: x.narrow(d, s, n))
SL = [(None, None, None), (1, None, None), (None, -1, None), (-100, 100, None), (1, None, 2), (5, 2, None),
      (-3, -1, 1), (None, None, 3), (2, 2, None), (None, None, 0), (None, None, -1)]
for a, b, c in SL:
    view_case(f"slice_{a}_{b}_{c}", "slice", mk("float32", [5, 2]), {"dim": 0, "start": a, "stop": b, "step": c},
              lambda x, a=a, b=b, c=c: x[a:b:c])
    view_case(f"slice1_{a}_{b}_{c}", "slice", mk("float32", [2, 5], pre=["sl1"]), {"dim": 1, "start": a, "stop": b, "step": c},
              lambda x, a=a, b=b, c=c: x[:, a:b:c])
for off, d1, d2 in [(0, 0, 1), (1, 0, 1), (-1, 0, 1), (5, 0, 1), (0, -1, 0), (0, 1, 1), (1, 0, 2)]:
    view_case(f"diagonal_{off}_{d1}_{d2}", "diagonal", mk("float32", [3, 4, 2]), {"offset": off, "d1": d1, "d2": d2},
              lambda x, o=off, a=d1, b=d2: torch.diagonal(x, o, a, b))

# ---------------------------------------------------------------- indexing
# items: {"k": "int", "v"} | {"k": "slice", start, stop, step} | {"k": "none"} | {"k": "ell"} | {"k": "tensor", "input": i}


def build_items(items, inputs):
    out = []
    for it in items:
        k = it["k"]
        if k == "int":
            out.append(it["v"])
        elif k == "slice":
            out.append(slice(it.get("start"), it.get("stop"), it.get("step")))
        elif k == "none":
            out.append(None)
        elif k == "ell":
            out.append(Ellipsis)
        else:
            out.append(inputs[it["input"]])
    return tuple(out)


def I(v):
    return {"k": "int", "v": v}


def S(start=None, stop=None, step=None):
    return {"k": "slice", "start": start, "stop": stop, "step": step}


N = {"k": "none"}
E = {"k": "ell"}


def TI(i):
    return {"k": "tensor", "input": i}


def idx_t(vals, shape=None):
    return mk("int64", shape or [len(vals)], data=vals)


def mask_t(vals, shape=None):
    return mk("bool", shape or [len(vals)], data=vals)


IDX = [
    ("int", [I(1)], []), ("negint", [I(-1), I(2)], []), ("oob", [I(5)], []), ("oob_neg", [I(0), I(-5)], []),
    ("slices", [S(1, None), S(None, None, 2)], []), ("none_ell", [N, E, N, I(0)], []),
    ("ell_only", [E], []), ("ell_mid", [I(0), E, S(1, 3)], []), ("two_ell", [E, E], []),
    ("too_many", [I(0), I(0), I(0), I(0)], []),
    ("list", [TI(1)], [idx_t([0, 3, -1, 0])]),
    ("list_oob", [TI(1)], [idx_t([0, 4])]),
    ("list_2d", [S(), TI(1)], [idx_t([0, 2, 1, 1], [2, 2])]),
    ("adj_pair", [S(), TI(1), TI(2)], [idx_t([0, 2]), idx_t([1, 4])]),
    ("nonadj_pair", [TI(1), S(), TI(2)], [idx_t([0, 3]), idx_t([1, 4])]),
    ("int_and_list", [I(1), S(), TI(1)], [idx_t([0, 3, 2])]),
    ("list_int_sep", [TI(1), S(), I(2)], [idx_t([0, 3, 2])]),
    ("bcast_idx", [TI(1), TI(2)], [idx_t([0, 1, 2], [3, 1]), idx_t([0, 1], [1, 2])]),
    ("badbcast_idx", [TI(1), TI(2)], [idx_t([0, 1, 2]), idx_t([0, 1])]),
    ("mask_full", [TI(1)], [mask_t([1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0], [4, 5])]),
    ("mask_row", [TI(1)], [mask_t([1, 0, 1, 1])]),
    ("mask_col", [S(), TI(1)], [mask_t([0, 1, 1, 0, 1])]),
    ("mask_bad", [TI(1)], [mask_t([1, 0, 1])]),
    ("mask_and_list", [TI(1), TI(2)], [mask_t([1, 0, 1, 1]), idx_t([0, 1, 4])]),
    ("none_list", [N, TI(1), N], [idx_t([1, 2])]),
    ("ell_list", [E, TI(1)], [idx_t([4, 0])]),
    ("zero_d_idx", [TI(1)], [mk("int64", [], data=[2])]),
    ("zero_d_bool", [TI(1)], [mk("bool", [], data=[1])]),
    ("zero_d_false", [S(), TI(1)], [mk("bool", [], data=[0])]),
    ("int32_idx", [TI(1)], [mk("int32", [2], data=[3, 1])]),
    ("float_idx", [TI(1)], [mk("float32", [2], data=[3, 1])]),
    ("empty_list", [TI(1)], [mk("int64", [0])]),
    ("slice_step0", [S(None, None, 0)], []),
]
for name, items, extra in IDX:
    for pre in [None, ["sl1"]]:
        x = mk("float32", [5, 5] if pre else [4, 5], pre=pre)
        if pre:
            # shape after sl1 is [4, 5]
            pass
        ins = [x] + extra

        def fn(*vals, items=items, params=None):
            out = vals[0][build_items(items, vals)]
            return out
        params = {"items": items}

        def wrap(*vals, items=items, params=params):
            out = vals[0][build_items(items, vals)]
            params["alias"] = alias(out, vals[0])
            return out
        add(f"index_{name}_{pre}", "index", ins, params, wrap)
x3 = mk("int32", [2, 3, 4], pre=["t"])
add("index_3d_nonadj_int", "index", [x3, idx_t([0, 1])], {"items": [TI(1), S(), I(1)]},
    lambda x, i: x[i, :, 1])
add("index_3d_adj_mid", "index", [x3, idx_t([0, 1]), idx_t([1, 0])], {"items": [S(), TI(1), TI(2)]},
    lambda x, i, j: x[:, i, j])
add("index_3d_mask2d", "index", [x3, mask_t([1, 0, 0, 1, 1, 0, 1, 1], [2, 4])], {"items": [TI(1)]}, lambda x, m: x[m])
add("index_0d", "index", [mk("float32", [])], {"items": [N]}, lambda x: x[None])
add("index_0d_int", "index", [mk("float32", [])], {"items": [I(0)]}, lambda x: x[0])

# setitem: outputs are [x after, base after]; the value is input 1 (or a scalar).
PUT = [
    ("int_row", [I(1)], Scalar(7.0), [], "float32"),
    ("slice_col", [S(), S(1, 3)], mk("float32", [2], data=[-1, -2]), [], "float32"),
    ("list", [TI(2)], mk("float32", [5]), [idx_t([0, 2])], "float32"),
    ("mask", [TI(2)], Scalar(0.0), [mask_t([1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1, 0, 1, 0], [4, 5])], "float32"),
    ("mask_vals", [TI(2)], mk("float32", [3], data=[1, 2, 3]), [mask_t([1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [4, 5])], "float32"),
    ("pair", [TI(2), TI(3)], mk("float32", [2], data=[5, 6]), [idx_t([0, 3]), idx_t([4, -1])], "float32"),
    ("dtype_mismatch", [TI(2)], mk("float64", [5]), [idx_t([0, 2])], "float32"),
    ("basic_dtype_conv", [I(0)], mk("float64", [5], data=[1.5, 2, 3, 4, 5]), [], "int64"),
    ("int_scalar_float", [TI(2)], Scalar(2.75), [idx_t([1])], "int64"),
    ("bad_shape", [I(0)], mk("float32", [3]), [], "float32"),
    ("oob", [TI(2)], Scalar(1.0), [idx_t([9])], "float32"),
    ("ell_none", [E, N, I(-1)], Scalar(3.0), [], "float32"),
]
for name, items, value, extra, dt in PUT:
    for pre in [None, ["t"]] if name not in ("mask", "pair") else [None, ["t"], ["sl1"]]:
        shp = [4, 5] if pre is None else ([5, 4] if pre == ["t"] else [5, 5])
        base_spec, x = mk(dt, shp, pre=pre)
        base = x
        while base._base is not None:
            base = base._base
        ins = [(base_spec, x), value] + extra

        def fn(x, v, *rest, items=items, base=base):
            x[build_items(items, [x, v] + list(rest))] = v
            return [x, base]
        add(f"index_put_{name}_{dt}_{pre}", "index_put", ins, {"items": items}, fn)

# ---------------------------------------------------------------- shape ops
add("cat_promote", "cat", [mk("int32", [2, 3]), mk("float32", [1, 3]), mk("int64", [3, 2], pre=["t"])],
    {"dim": 0}, lambda *ts: torch.cat(ts, 0))
add("cat_dim1_nc", "cat", [mk("float32", [2, 3], pre=None), mk("float32", [3, 2], pre=["t"])], {"dim": -1},
    lambda *ts: torch.cat(ts, -1))
add("cat_skip_empty", "cat", [mk("float32", [0]), mk("float64", [2, 2]), mk("float32", [0])], {"dim": 1},
    lambda *ts: torch.cat(ts, 1))
add("cat_all_empty", "cat", [mk("float32", [0]), mk("int64", [0])], {"dim": 0}, lambda *ts: torch.cat(ts, 0))
add("cat_mismatch", "cat", [mk("float32", [2, 3]), mk("float32", [2, 2])], {"dim": 0}, lambda *ts: torch.cat(ts, 0))
add("cat_0d", "cat", [mk("float32", []), mk("float32", [])], {"dim": 0}, lambda *ts: torch.cat(ts, 0))
add("cat_baddim", "cat", [mk("float32", [2]), mk("float32", [2])], {"dim": 1}, lambda *ts: torch.cat(ts, 1))
add("cat_ndim", "cat", [mk("float32", [2]), mk("float32", [2, 1])], {"dim": 0}, lambda *ts: torch.cat(ts, 0))
add("cat_empty_2d", "cat", [mk("float32", [0, 3]), mk("float32", [2, 3])], {"dim": 0}, lambda *ts: torch.cat(ts, 0))
add("cat_bool", "cat", [mk("bool", [2]), mk("bool", [3])], {"dim": 0}, lambda *ts: torch.cat(ts, 0))
for d in [0, 1, 2, -1, 3]:
    add(f"stack_{d}", "stack", [mk("float32", [2, 3]), mk("int64", [2, 3]), mk("float32", [3, 2], pre=["t"])], {"dim": d},
        lambda *ts, d=d: torch.stack(ts, d))
add("stack_mismatch", "stack", [mk("float32", [2, 3]), mk("float32", [3, 2])], {"dim": 0}, lambda *ts: torch.stack(ts, 0))
add("stack_0d", "stack", [mk("float32", []), mk("float32", [])], {"dim": 0}, lambda *ts: torch.stack(ts, 0))
for sizes, dim in [([2], 0), ([3], 1), ([1, 2, 2], 1), ([5], -1), ([0], 0), ([-1], 0), ([1, 1], 1), ([4, 1], -1), ([2], 3)]:
    add(f"split_{sizes}_{dim}", "split", [mk("float32", [3, 5], pre=None)], {"sizes": sizes, "dim": dim},
        lambda x, s=sizes, d=dim: list(torch.split(x, s[0] if len(s) == 1 else s, d)))
add("split_empty0", "split", [mk("float32", [0, 2])], {"sizes": [0], "dim": 0}, lambda x: list(torch.split(x, 0, 0)))
for ch, dim in [(2, 0), (3, 1), (4, 1), (6, 1), (10, 1), (0, 0), (1, 0), (2, -1)]:
    add(f"chunk_{ch}_{dim}", "chunk", [mk("float32", [3, 5], pre=["sl1"] if False else None)], {"chunks": ch, "dim": dim},
        lambda x, c=ch, d=dim: list(torch.chunk(x, c, d)))
for shape, v, dt in [([2, 3], 1.5, "float32"), ([2], 2.7, "int64"), ([3], 1, "bool"), ([], -0.5, "float64"),
                     ([0, 2], 3, "int32"), ([-1, 2], 1, "float32"), ([2], float("nan"), "float32"), ([2], 1e10, "float16")]:
    add(f"full_{shape}_{v}_{dt}", "full", [], {"shape": shape, "value": enc_val(v), "dtype": dt},
        lambda s=shape, v=v, d=dt: torch.full(s, v, dtype=DT[d]))
for st, en, sp, dt in [(0, 5, 1, "int64"), (0, 1, 0.1, "float32"), (1, 10, 3, "int64"), (5, 0, -1, "int64"),
                       (0, 2.5, 0.5, "float64"), (0, 5, 0, "int64"), (5, 0, 1, "int64"), (0.5, 3.2, 0.7, None),
                       (-1, 1, 0.25, None), (0, 3, 1, "float32"), (0, 0, 1, "int64"), (0, 10, 3, "int32")]:
    def ar(st=st, en=en, sp=sp, dt=dt):
        if dt is None:
            return torch.arange(st, en, sp)
        return torch.arange(st, en, sp, dtype=DT[dt])
    add(f"arange_{st}_{en}_{sp}_{dt}", "arange", [], {"start": st, "end": en, "step": sp, "dtype": dt}, ar)
for f, fn in [("triu", torch.triu), ("tril", torch.tril)]:
    for k in [0, 1, -1, 5, -5]:
        add(f"{f}_{k}", f, [mk("float32", [2, 3, 4], pre=["sl1"] if False else None)], {"diagonal": k},
            lambda x, fn=fn, k=k: fn(x, k))
    add(f"{f}_nc_int", f, [mk("int64", [4, 3], pre=["t"])], {"diagonal": 0}, lambda x, fn=fn: fn(x))
    add(f"{f}_1d", f, [mk("float32", [3])], {"diagonal": 0}, lambda x, fn=fn: fn(x))
SORTD = ["nan", 3, 1, 3, "-inf", 2, "nan", 1, "inf", 0, 2, -1]
for dim in [0, 1, -1]:
    for desc in [False, True]:
        add(f"sort_{dim}_{desc}", "sort", [mk("float32", [3, 4], data=SORTD)], {"dim": dim, "descending": desc, "stable": True},
            lambda x, d=dim, s=desc: list(torch.sort(x, dim=d, descending=s, stable=True)))
        add(f"sort_int_{dim}_{desc}", "sort", [mk("int32", [4, 3], lo=0, hi=3, pre=["t"])],
            {"dim": dim, "descending": desc, "stable": True},
            lambda x, d=dim, s=desc: list(torch.sort(x, dim=d, descending=s, stable=True)))
add("sort_0d", "sort", [mk("float32", [], data=[2])], {"dim": 0, "descending": False, "stable": True},
    lambda x: list(torch.sort(x, dim=0, stable=True)))
add("sort_baddim", "sort", [mk("float32", [3])], {"dim": 1, "descending": False, "stable": True},
    lambda x: list(torch.sort(x, dim=1, stable=True)))
add("sort_empty", "sort", [mk("float32", [0, 3])], {"dim": 0, "descending": False, "stable": True},
    lambda x: list(torch.sort(x, dim=0, stable=True)))
TOPD = [0.5, 3, -1, 2.25, "nan", 7, 1, -4, 6, 0, 8, -2]
for k, dim, largest in [(2, 1, True), (1, 0, False), (3, -1, False), (0, 1, True), (5, 1, True), (4, 1, True), (-1, 1, True)]:
    add(f"topk_{k}_{dim}_{largest}", "topk", [mk("float32", [3, 4], data=TOPD)], {"k": k, "dim": dim, "largest": largest, "sorted": True},
        lambda x, k=k, d=dim, l=largest: list(torch.topk(x, k, dim=d, largest=l, sorted=True)))
add("topk_int", "topk", [mk("int64", [5], data=[3, 9, -2, 4, 0])], {"k": 2, "dim": 0, "largest": True, "sorted": True},
    lambda x: list(torch.topk(x, 2)))
for dims in [[0], [1, 0], [-1], [0, 0], [2]]:
    add(f"flip_{dims}", "flip", [mk("int64", [2, 3], pre=None)], {"dims": dims}, lambda x, d=dims: torch.flip(x, d))
for reps in [[2, 1], [1, 2, 2], [2], [0, 2]]:
    add(f"repeat_{reps}", "repeat", [mk("float32", [2, 3], pre=None)], {"repeats": reps}, lambda x, r=reps: x.repeat(*r))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "core_cases.json")
with open(out, "w") as f:
    json.dump(cases, f, separators=(",", ":"))
print(len(cases), "cases,", os.path.getsize(out), "bytes")
