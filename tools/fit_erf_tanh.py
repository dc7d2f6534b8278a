#!/usr/bin/python3
"""Fits gcdbg_erff and gcdbg_tanhf (render/erf_tanh.go): f(x) = x * P(x^2) / Q(x^2).

Reproduces the coefficients in render/erf_tanh.go:

    /usr/bin/python3 tools/fit_erf_tanh.py erf 5 4 --monic --range 3.65   # degrees of P, Q in x^2
    /usr/bin/python3 tools/fit_erf_tanh.py tanh 3 4 --monic --range 8
    /usr/bin/python3 tools/fit_erf_tanh.py erf 5 4 --range 3.65 --sweep --coeffs='P;Q'   # every float

(a few minutes each on a quiet core; the sweep over all 2^32 floats takes
two threads about 1.5 minutes per function).

1. Lawson-weighted linearized least squares in float64 (numpy): minimax of
   the error in float ULPs of f(x), over |x| up to --range (default: where
   f(x) rounds to 1); --monic then scales P and Q so that Q's leading
   coefficient is 1 (its first Horner step an add in the C), and P's
   constant term is tied to Q's (tie_constant).
2. The coefficients rounded to float, then nudged one float step at a time
   (coordinate descent) while that lowers the worst ULP error of the float
   evaluation (the prelude's exact operations, tools/erf_tanh_eval.c) on
   a deterministic sample of floats.
3. The saturation: the first float where the float rational exceeds 1, or
   --range if that comes first; the compare is x^2 >= that float's square
   rounded to float.
4. --sweep: the error over all 2^32 floats (the numbers docs/performance.md
   quotes), and the special values (NaN, +-Inf, -0, |f| <= 1, tanh(x) = x
   for tiny x).

Needs numpy and a C compiler; deterministic (no random numbers).
"""
import argparse
import ctypes
import math
import os
import struct
import subprocess
import sys
import tempfile
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# |x| from which f(x) rounds to 1 in float (first float where float(f) == 1)
LIMIT = {"erf": 3.9192059, "tanh": 9.0109134}
# where the float rational is searched for a first overshoot of 1: an
# accurate fit cannot exceed 1 where 1 - f(x) is many ULPs (the full sweep
# checks |f| <= 1 over every float)
OVERSHOOT_FROM = {"erf": 3.0, "tanh": 6.0}


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def frombits(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def hexf(v):
    """C float literal as the Go file writes it (0x1.abcdefp-3f)."""
    if v == 1.0:
        return "1.0f"
    if v < 0:
        return "-" + hexf(-v)
    m, e = math.frexp(v)  # v = m * 2^e, m in [0.5, 1)
    mant = int(round((m * 2 - 1) * (1 << 23)))
    return "0x1.%06xp%+df" % (mant << 1, e - 1)


def lib():
    d = tempfile.mkdtemp(prefix="fit_erf_tanh")
    so = os.path.join(d, "eval.so")
    subprocess.check_call(["cc", "-O2", "-march=native", "-ffp-contract=off", "-fPIC", "-shared", "-o", so,
                           os.path.join(HERE, "erf_tanh_eval.c"), "-lm"])
    L = ctypes.CDLL(so)
    fp, dp, i64 = ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_double), ctypes.c_int64
    L.refs.argtypes = [ctypes.c_int, fp, dp, i64]
    L.maxerr.argtypes = [fp, dp, i64, fp, ctypes.c_int, fp, ctypes.c_int, ctypes.c_float, ctypes.POINTER(i64)]
    L.maxerr.restype = ctypes.c_double
    L.first_overshoot.argtypes = [ctypes.c_uint32, ctypes.c_uint32, fp, ctypes.c_int, fp, ctypes.c_int]
    L.first_overshoot.restype = ctypes.c_uint32
    L.sweep.argtypes = [ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32, fp, ctypes.c_int, fp, ctypes.c_int,
                        ctypes.c_float, dp]
    return L


def fptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


def dptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


def ulp32(v):
    a = np.abs(v)
    e = np.floor(np.log2(np.maximum(a, 2.0 ** -126)))
    return np.ldexp(1.0, (e - 23).astype(int))


def lawson(fn, dp, dq, X, iters=2000):
    """Rational x*P(t)/Q(t), t = x^2, Q(0) = 1 (tanh: P(0) = 1 too), minimax
    in float ULPs of f in exact arithmetic over 0 < x <= X. Returns P, Q
    highest degree first."""
    ref = np.vectorize(math.erf if fn == "erf" else math.tanh)
    x = np.concatenate([np.linspace(X / 20000, X, 20000), np.geomspace(1e-4, X / 20000, 200)])
    x = np.unique(x.astype(np.float32).astype(np.float64))
    fx = ref(x)
    g = fx / x
    u = ulp32(fx)
    T = X * X
    s = x * x / T  # scaled variable: coefficients c_k / T^k
    fixp0 = fn == "tanh"
    w = np.ones_like(x) / len(x)
    qprev = np.ones_like(x)
    best = None
    for it in range(iters):
        # unknowns: p_0..p_dp (p_0 fixed 1 for tanh), q_1..q_dq; minimize
        # sum w * (x (P - g Q) / (Qprev u))^2
        sc = x / (qprev * u)
        cols, rhs = [], -g * 0.0
        rhs = g.copy()  # P - g*(1 + sum q_k s^k) = 0  ->  P - g sum q_k s^k = g
        if fixp0:
            rhs = g - 1.0
        for k in range(0 if not fixp0 else 1, dp + 1):
            cols.append(s ** k)
        for k in range(1, dq + 1):
            cols.append(-g * s ** k)
        A = np.stack(cols, axis=1) * (sc * np.sqrt(w))[:, None]
        b = rhs * sc * np.sqrt(w)
        c, *_ = np.linalg.lstsq(A, b, rcond=None)
        pc = ([1.0] if fixp0 else []) + list(c[: dp + (0 if fixp0 else 1)])
        qc = [1.0] + list(c[dp + (0 if fixp0 else 1):])
        P = np.polyval(pc[::-1], s)
        Q = np.polyval(qc[::-1], s)
        e = (x * P / Q - fx) / u
        m = np.max(np.abs(e))
        if best is None or m < best[0]:
            best = (m, pc, qc)
        qprev = Q
        w = w * np.abs(e) ** 1.0
        w /= w.sum()
    m, pc, qc = best
    p = [pc[k] / T ** k for k in range(dp, -1, -1)]
    q = [qc[k] / T ** k for k in range(dq, -1, -1)]
    return m, p, q


def sample(fn):
    """Deterministic floats for the nudging: every 257th float bit pattern
    from 2^-30 to the limit, plus every 7th from a quarter of the limit."""
    X = LIMIT[fn]
    lo, hi = bits(2.0 ** -30), bits(X) + 1
    s = np.arange(lo, hi, 257, dtype=np.uint32)
    dense = np.arange(bits(X / 4), hi, 7, dtype=np.uint32)
    return np.unique(np.concatenate([s, dense])).view(np.float32)


class Evaluator:
    def __init__(self, L, fn, xs):
        self.L, self.fn = L, fn
        self.xs = np.ascontiguousarray(xs, dtype=np.float32)
        self.ref = np.empty(len(xs))
        L.refs(1 if fn == "tanh" else 0, fptr(self.xs), dptr(self.ref), len(xs))

    def err(self, p, q, sat=0.0):
        p = np.asarray(p, dtype=np.float32)
        q = np.asarray(q, dtype=np.float32)
        at = ctypes.c_int64()
        m = self.L.maxerr(fptr(self.xs), dptr(self.ref), len(self.xs), fptr(p), len(p), fptr(q), len(q), sat,
                          ctypes.byref(at))
        return m, float(self.xs[at.value])


def saturation(L, fn, p, q, X):
    """The first float where the float rational exceeds 1, or X if none is
    below it, and that float's square rounded to float (the compare)."""
    p = np.asarray(p, dtype=np.float32)
    q = np.asarray(q, dtype=np.float32)
    lim = bits(X)
    b = L.first_overshoot(bits(min(OVERSHOOT_FROM[fn], X)), lim, fptr(p), len(p), fptr(q), len(q))
    first = frombits(b if b else lim)
    return first, f32(first * first)


def tie_constant(fn, p, q):
    """P's constant term from Q's: for tiny x the result is x * (P(0) / Q(0))
    in float, so P(0) / Q(0) must round to f'(0) (tanh: 1, P(0) = Q(0);
    erf: 2/sqrt(pi) rounded to float) or tiny |x| (most floats) would all
    carry the ratio's error."""
    if fn == "tanh":
        p[-1] = q[-1]
        return
    c = f32(2 / math.sqrt(math.pi))
    base = bits(f32(q[-1] * c))
    for d in (0, 1, -1, 2, -2, 3, -3):
        v = frombits(base + d)
        if f32(v / q[-1]) == c:
            p[-1] = v
            return
    raise ValueError("no P(0) gives P(0)/Q(0) = %r" % c)


def nudge(ev, L, fn, p, q, X, fixed, tie=False, rounds=40, span=(1, 2, 4)):
    """Coordinate descent over the float coefficients (one float step times
    span), on the error with the saturation in place. fixed: (which, i)
    left alone; tie: P's constant term follows Q's (tie_constant)."""
    p = [f32(v) for v in p]
    q = [f32(v) for v in q]
    if tie:
        tie_constant(fn, p, q)

    def score(p, q):
        _, sat = saturation(L, fn, p, q, X)
        return ev.err(p, q, sat)[0]

    return descend(p, q, score, fixed, (lambda p, q: tie_constant(fn, p, q)) if tie else None, rounds, span)


def descend(p, q, score, fixed, follow=None, rounds=40, span=(1, 2, 4)):
    """Coordinate descent over float coefficient lists p and q, in place:
    each coefficient not in fixed ((which, i) pairs) moves by span float
    steps either way while that lowers score(p, q); follow(p, q), if given,
    re-derives tied coefficients after each move (and after each undo).
    Returns the score and p, q. tools/fit_gelu.py uses it too."""
    cur = score(p, q)
    for r in range(rounds):
        improved = False
        for which, arr in (("p", p), ("q", q)):
            for i in range(len(arr)):
                if (which, i) in fixed:
                    continue
                for d in span:
                    for sgn in (1, -1):
                        old = arr[i]
                        arr[i] = frombits(bits(old) + sgn * d)
                        if follow:
                            follow(p, q)
                        s = score(p, q)
                        if s < cur - 1e-9:
                            cur, improved = s, True
                            print("  round %d %s[%d] %+d -> %.4f ULP" % (r, which, i, sgn * d, cur), file=sys.stderr)
                        else:
                            arr[i] = old
                            if follow:
                                follow(p, q)
        if not improved:
            break
    return cur, p, q


def full_sweep(L, fn, p, q, sat):
    p = np.asarray(p, dtype=np.float32)
    q = np.asarray(q, dtype=np.float32)
    parts = [(0, 0x40000000), (0x40000000, 0x80000000)]
    outs = [np.zeros(8) for _ in parts]
    ths = [threading.Thread(target=L.sweep, args=(1 if fn == "tanh" else 0, lo, hi, fptr(p), len(p), fptr(q), len(q),
                                                   sat, dptr(o))) for (lo, hi), o in zip(parts, outs)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    a, b = outs
    w, wx = (a[0], a[1]) if a[0] >= b[0] else (b[0], b[1])
    cnt = a[7] + b[7]
    return {"max": w, "at": wx, "mean": (a[2] + b[2]) / cnt, "gt1": a[3] + b[3], "gt2": a[4] + b[4],
            "gt4": a[5] + b[5], "bad": a[6] + b[6]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fn", choices=["erf", "tanh"])
    ap.add_argument("dp", type=int)
    ap.add_argument("dq", type=int)
    ap.add_argument("--range", type=float, help="fit over |x| up to this, saturate from it (default: where f rounds to 1)")
    ap.add_argument("--monic", action="store_true", help="Q's leading coefficient 1 (its first Horner step an add)")
    ap.add_argument("--iters", type=int, default=800, help="Lawson iterations (the committed fits: 800)")
    ap.add_argument("--sweep", action="store_true", help="error over all 2^32 floats")
    ap.add_argument("--coeffs", help="skip the fit: P and Q as hex floats, 'p0,p1,...;q0,q1,...' highest first")
    a = ap.parse_args()
    X = f32(a.range or LIMIT[a.fn])
    L = lib()
    ev = Evaluator(L, a.fn, sample(a.fn))
    if a.coeffs:
        ps, qs = a.coeffs.split(";")
        p = [float.fromhex(v.rstrip("f")) for v in ps.split(",")]
        q = [float.fromhex(v.rstrip("f")) for v in qs.split(",")]
    else:
        m, p, q = lawson(a.fn, a.dp, a.dq, X, a.iters)
        print("%s (%d,%d) over |x| <= %.8g: exact-arithmetic fit %.3f ULP" % (a.fn, a.dp, a.dq, X, m))
        if a.monic:
            s = q[0]
            p = [v / s for v in p]
            q = [v / s for v in q]
            q[0] = 1.0
            fixed = {("q", 0), ("p", a.dp)}
        else:
            fixed = {("q", a.dq)} | ({("p", a.dp)} if a.fn == "tanh" else set())
        print("  float evaluation, rounded coefficients: %.3f ULP (rational alone)" % ev.err(p, q)[0])
        _, p, q = nudge(ev, L, a.fn, p, q, X, fixed, tie=a.monic)
    first, sat = saturation(L, a.fn, p, q, X)
    m, at = ev.err(p, q, sat)
    print("  float evaluation on the sample: %.3f ULP at x = %.8g; saturation from %s (%.8g), x^2 >= %s" % (
        m, at, hexf(first), first, hexf(sat)))
    print("  P: " + ", ".join('"%s"' % hexf(v) for v in p))
    print("  Q: " + ", ".join('"%s"' % hexf(v) for v in q))
    if a.sweep:
        r = full_sweep(L, a.fn, p, q, sat)
        print("  all 2^32 floats: max %.2f ULP at x = %.6g, mean %.3f, > 1 ULP %.2f M, > 2 ULP %.2f M, > 4 ULP %d, "
              "bad specials %d" % (r["max"], r["at"], r["mean"], r["gt1"] / 1e6, r["gt2"] / 1e6, r["gt4"], r["bad"]))


if __name__ == "__main__":
    main()
