#!/usr/bin/python3
"""Fits gcdbg_gelu_erff and gcdbg_gelu_tanhf (render/gelu.go):

    gelu(x) = h * (1 + x * P(s) / Q(s)),  s = x^2, h = x / 2,

x * P(s) / Q(s) standing for erf(x / sqrt 2) (GELU) or for
tanh(sqrt(2/pi) (x + 0.044715 x^3)) (its tanh form) as functions of x, and
h * (1 + copysign(1, x)) from s >= X^2 on. Reproduces the coefficients in
render/gelu.go:

    /usr/bin/python3 tools/fit_gelu.py erf 5 4 --range 5.3 --sweep
    /usr/bin/python3 tools/fit_gelu.py tanh 4 4 --range 5.0 --sweep

(a minute or two each on a quiet core, the sweep over all 2^32 floats
about two more on two threads).

What is minimized is GELU's error, not erf's: in ULPs of max(|gelu(x)|,
|x| / 2). For x > 0 that is the result's own ULP; for x < 0, where 1 + erf
cancels, it is the ULP of x / 2, the scale of the rounding of 1 + erf in
the decomposed graph's own float evaluation (PyTorch's formula, which the
sweep measures too). So x * P / Q must be accurate absolutely (to ~2^-24),
not relatively, which a rational of the same degrees as gcdbg_erff fits
directly in x, with no scaling of x and no computation of tanh's argument.

1. Lawson-weighted linearized least squares in float64 (numpy): minimax of
   the absolute error of x * P(s) / Q(s) over 0 < x <= --range; Q monic.
2. The coefficients rounded to float, then nudged one float step at a time
   (coordinate descent) while that lowers the worst GELU error of the
   float evaluation (tools/gelu_eval.c: the prelude's operations) on a
   deterministic sample of floats, saturation in place.
3. --sweep: the error over all 2^32 floats and the special values (NaN,
   +-Inf, zeros with their signs) against the formula's.

Needs numpy and a C compiler; deterministic (no random numbers).
"""
import argparse
import ctypes
import math
import os
import subprocess
import sys
import tempfile
import threading

import numpy as np

from fit_erf_tanh import bits, descend, dptr, f32, fptr, hexf  # tools/: the helpers the two fits share

HERE = os.path.dirname(os.path.abspath(__file__))
FN = {"erf": 0, "tanh": 1}


def lib():
    d = tempfile.mkdtemp(prefix="fit_gelu")
    so = os.path.join(d, "eval.so")
    subprocess.check_call(["cc", "-O2", "-march=native", "-ffp-contract=off", "-fPIC", "-shared", "-o", so,
                           os.path.join(HERE, "gelu_eval.c"), "-lm"])
    L = ctypes.CDLL(so)
    fp, dp, i64 = ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_double), ctypes.c_int64
    L.targets.argtypes = [ctypes.c_int, dp, dp, i64]
    L.maxerr.argtypes = [ctypes.c_int, fp, i64, fp, ctypes.c_int, fp, ctypes.c_int, ctypes.c_float,
                         ctypes.POINTER(i64)]
    L.maxerr.restype = ctypes.c_double
    L.sweep.argtypes = [ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32, fp, ctypes.c_int, fp, ctypes.c_int,
                        ctypes.c_float, dp]
    return L


def lawson(L, fn, dp, dq, X, iters):
    """x * P(s) / Q(s), s = x^2, Q monic, minimax absolute error against
    the target over 0 < x <= X. Returns the error and P, Q highest degree
    first."""
    x = np.linspace(X / 40000, X, 40000)
    fx = np.empty_like(x)
    L.targets(FN[fn], dptr(x), dptr(fx), len(x))
    g = fx / x
    T = X * X
    s = x * x / T  # scaled variable: coefficients c_k / T^k
    w = np.ones_like(x) / len(x)
    qprev = np.ones_like(x)
    best = None
    for _ in range(iters):
        # unknowns p_0..p_dp, q_0..q_{dq-1} (q_dq = 1): P - g Q = 0, weighted by x / Qprev
        sc = x / qprev * np.sqrt(w)
        cols = [s ** k for k in range(dp + 1)] + [-g * s ** k for k in range(dq)]
        A = np.stack(cols, axis=1) * sc[:, None]
        b = g * s ** dq * sc
        c, *_ = np.linalg.lstsq(A, b, rcond=None)
        pc, qc = list(c[:dp + 1]), list(c[dp + 1:]) + [1.0]
        P, Q = np.polyval(pc[::-1], s), np.polyval(qc[::-1], s)
        e = x * P / Q - fx
        m = np.max(np.abs(e))
        if best is None or m < best[0]:
            best = (m, pc, qc)
        qprev = Q
        w = w * np.abs(e)
        w /= w.sum()
    m, pc, qc = best
    # back to s = x^2: c_k / T^k, then monic again
    p = [pc[k] / T ** k for k in range(dp, -1, -1)]
    q = [qc[k] / T ** k for k in range(dq, -1, -1)]
    return m, [v / q[0] for v in p], [v / q[0] for v in q]


def sample(X):
    """Deterministic floats for the nudging, both signs: every 127th float
    bit pattern from 2^-20 to 1.1 X, and every 7th from X / 4."""
    lo, hi = bits(2.0 ** -20), bits(1.1 * X)
    s = np.arange(lo, hi, 127, dtype=np.uint32)
    dense = np.arange(bits(X / 4), hi, 7, dtype=np.uint32)
    v = np.unique(np.concatenate([s, dense])).view(np.float32)
    return np.ascontiguousarray(np.concatenate([v, -v]))


def maxerr(L, fn, xs, p, q, sat):
    p = np.asarray(p, dtype=np.float32)
    q = np.asarray(q, dtype=np.float32)
    at = ctypes.c_int64()
    m = L.maxerr(FN[fn], fptr(xs), len(xs), fptr(p), len(p), fptr(q), len(q), sat, ctypes.byref(at))
    return m, float(xs[at.value])


def nudge(L, fn, xs, p, q, sat, rounds=40, span=(1, 2, 4, 8)):
    """Coordinate descent over the float coefficients (Q's leading 1 fixed)."""
    p = [f32(v) for v in p]
    q = [f32(v) for v in q]
    return descend(p, q, lambda p, q: maxerr(L, fn, xs, p, q, sat)[0], {("q", 0)}, rounds=rounds, span=span)


def full_sweep(L, fn, p, q, sat):
    p = np.asarray(p, dtype=np.float32)
    q = np.asarray(q, dtype=np.float32)
    parts = [(0, 0x80000000), (0x80000000, 0xFFFFFFFF)]
    outs = [np.zeros(7) for _ in parts]
    ths = [threading.Thread(target=L.sweep, args=(FN[fn], lo, hi, fptr(p), len(p), fptr(q), len(q), sat, dptr(o)))
           for (lo, hi), o in zip(parts, outs)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    a, b = outs
    w, wx = (a[0], a[1]) if a[0] >= b[0] else (b[0], b[1])
    fw, fwx = (a[3], a[4]) if a[3] >= b[3] else (b[3], b[4])
    return {"max": w, "at": wx, "mean": (a[2] + b[2]) / (a[6] + b[6]), "formula": fw, "formula_at": fwx,
            "bad": a[5] + b[5]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fn", choices=sorted(FN))
    ap.add_argument("dp", type=int, help="degree of P in x^2")
    ap.add_argument("dq", type=int, help="degree of Q in x^2 (monic)")
    ap.add_argument("--range", type=float, required=True, help="fit over 0 < x <= this; saturate from x^2 >= its square")
    ap.add_argument("--iters", type=int, default=1500, help="Lawson iterations")
    ap.add_argument("--sweep", action="store_true", help="error over all 2^32 floats")
    ap.add_argument("--coeffs", help="skip the fit: P and Q as hex floats, 'p0,p1,...;q0,q1,...' highest first")
    a = ap.parse_args()
    X = f32(a.range)
    sat = f32(X * X)
    L = lib()
    xs = sample(X)
    if a.coeffs:
        ps, qs = a.coeffs.split(";")
        p = [float.fromhex(v.rstrip("f")) for v in ps.split(",")]
        q = [float.fromhex(v.rstrip("f")) for v in qs.split(",")]
    else:
        m, p, q = lawson(L, a.fn, a.dp, a.dq, X, a.iters)
        print("%s (%d,%d) over 0 < x <= %.8g: exact-arithmetic fit %.3g absolute (2^%.2f)" % (
            a.fn, a.dp, a.dq, X, m, math.log2(m)))
        print("  float evaluation, rounded coefficients: %.3f ULP" % maxerr(L, a.fn, xs, p, q, sat)[0])
        _, p, q = nudge(L, a.fn, xs, p, q, sat)
    m, at = maxerr(L, a.fn, xs, p, q, sat)
    print("  float evaluation on the sample: %.3f ULP at x = %.8g; saturation from x^2 >= %s" % (m, at, hexf(sat)))
    print("  P: " + ", ".join('"%s"' % hexf(v) for v in p))
    print("  Q: " + ", ".join('"%s"' % hexf(v) for v in q))
    if a.sweep:
        r = full_sweep(L, a.fn, p, q, sat)
        print("  all 2^32 floats: max %.2f ULP at x = %.7g, mean %.4f; the formula's own max %.2f at x = %.7g; "
              "bad specials %d" % (r["max"], r["at"], r["mean"], r["formula"], r["formula_at"], r["bad"]))


if __name__ == "__main__":
    main()
