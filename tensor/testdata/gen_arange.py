"""Writes arange_cases.json: torch.arange of PyTorch 1.13 (CPU) for every trace dtype and start/end/step
cases that hit the vectorized layout, FMA rounding, truncated integer arguments and int64's size rule.
    /usr/bin/python3 tensor/testdata/gen_arange.py"""
import json, os
import torch

torch.set_num_threads(1)
CASES = [(0, 100, 0.1), (0.3, 57.7, 0.37), (-3.1, 9, 0.013), (1, 2000, 1.7), (5, -3, -0.3),
         (0.0, -8.000001, -4.0), (1.0, 5.000001, 2.0), (-0.9, 2.1, 2.0), (2.1, -2.9, -1.0),
         (0.1, -7.9, -4.0), (3.1, None, None), (0, 3.1, 1), (-1, 2, 2), (2, -3, -1), (0, 300, 1),
         (-7.5, 250.25, 0.75)]
out = []
for dt in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8"):
    for s, e, st in CASES:
        args = (s,) if e is None else (s, e, st)
        try:
            v = torch.arange(*args, dtype=getattr(torch, dt))
        except RuntimeError as err:
            out.append({"dtype": dt, "args": args, "error": str(err).splitlines()[0]})
            continue
        out.append({"dtype": dt, "args": args, "values": v.double().tolist()})
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "arange_cases.json"), "w") as f:
    json.dump({"torch": torch.__version__, "cases": out}, f)
