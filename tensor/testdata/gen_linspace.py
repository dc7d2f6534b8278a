"""Writes linspace_cases.json: torch.linspace, torch.logspace and torch.eye of PyTorch 1.13 (CPU, one
thread) for every trace dtype, with start/end/steps that hit the vectorized layout (pairs of
Vectorized<T>), the halfway switch to end - step * (steps - 1 - i), truncation of integer results,
steps 0 and 1, a decreasing range and logspace bases 10, 2, 0.5 and -2.
    /usr/bin/python3 tensor/testdata/gen_linspace.py"""
import json, os
import torch

torch.set_num_threads(1)
LIN = [(0, 1, 5), (-3.1, 9.7, 50), (1, 2000, 1000), (5, -3, 37), (0.1, 0.7, 7), (-1e3, 1e3, 101),
       (0, 10, 4), (3, 3, 9), (2.5, -7.25, 2), (1.5, 8, 1), (0, 5, 0), (-10, 10, 300), (0.3, 57.7, 33),
       (0, 255, 17), (-128, 127, 64), (1e-3, 1.0, 20), (7, 100, 31)]
LOG = [(0, 1, 5, 10.0), (-3.1, 2.7, 50, 10.0), (0, 10, 11, 2.0), (5, -3, 37, 2.0), (0.1, 0.7, 7, 10.0),
       (-2, 2, 9, 0.5), (0, 4, 5, -2.0), (1, 3, 1, 10.0), (0, 5, 0, 10.0), (-10, 10, 300, 1.1),
       (0, 3, 33, 10.0)]
EYE = [(0, None), (1, None), (5, None), (3, 7), (7, 3), (40, 33), (4, 0)]
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool")
out = []
for dt in DTYPES:
    d = getattr(torch, dt)
    for s, e, n in LIN:
        try:
            v = torch.linspace(s, e, n, dtype=d)
        except RuntimeError as err:
            out.append({"op": "linspace", "dtype": dt, "args": [s, e, n], "error": str(err).splitlines()[0]})
            continue
        out.append({"op": "linspace", "dtype": dt, "args": [s, e, n], "values": v.double().tolist()})
    for s, e, n, b in LOG:
        try:
            v = torch.logspace(s, e, n, base=b, dtype=d)
        except RuntimeError as err:
            out.append({"op": "logspace", "dtype": dt, "args": [s, e, n, b], "error": str(err).splitlines()[0]})
            continue
        out.append({"op": "logspace", "dtype": dt, "args": [s, e, n, b], "values": v.double().tolist()})
    for n, m in EYE:
        try:
            v = torch.eye(n, dtype=d) if m is None else torch.eye(n, m, dtype=d)
        except RuntimeError as err:
            out.append({"op": "eye", "dtype": dt, "args": [n, m if m is not None else n], "error": str(err).splitlines()[0]})
            continue
        out.append({"op": "eye", "dtype": dt, "args": [n, m if m is not None else n], "values": v.double().flatten().tolist()})
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "linspace_cases.json"), "w") as f:
    json.dump({"torch": torch.__version__, "cases": out}, f)
