#!/usr/bin/python3
"""Generate train_cases.json: PyTorch reference cases for tensor/norm_train.go
(F.batch_norm with training=True: the output and the updated running stats).
Run with the system python that has torch:

    /usr/bin/python3 tensor/testdata/gen_train.py

Each case: {"name", "inputs": [x, running_mean|null, running_var|null, weight|null, bias|null],
"momentum", "eps", "outputs": [out, new_running_mean|null, new_running_var|null]}
or "error": true when PyTorch rejects the inputs.
"""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(0)
NAMES = {torch.float32: "float32", torch.float64: "float64"}


def enc(t):
    if t is None:
        return None
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data": t.reshape(-1).tolist()}


cases = []


def case(name, shape, dt=torch.float32, stats=True, affine=True, momentum=0.1, eps=1e-5):
    C = shape[1]
    x = torch.randn(*shape, dtype=dt) * 2 + 0.5
    rm = torch.randn(C, dtype=dt) if stats else None
    rv = torch.rand(C, dtype=dt) + 0.5 if stats else None
    w = torch.rand(C, dtype=dt) + 0.5 if affine else None
    b = torch.randn(C, dtype=dt) if affine else None
    c = {"name": name, "inputs": [enc(t) for t in (x, rm, rv, w, b)], "momentum": momentum, "eps": eps}
    rm2 = rm.clone() if stats else None
    rv2 = rv.clone() if stats else None
    try:
        out = F.batch_norm(x, rm2, rv2, w, b, training=True, momentum=momentum, eps=eps)
        c["outputs"] = [enc(out), enc(rm2), enc(rv2)]
    except (RuntimeError, ValueError):
        c["error"] = True
    cases.append(c)


case("bn1d_2d", [8, 3])
case("bn1d_3d", [4, 3, 5])
case("bn2d", [2, 4, 3, 3], momentum=0.3)
case("bn3d", [2, 2, 2, 3, 2])
case("bn2d_f64", [3, 2, 4, 4], dt=torch.float64, momentum=0.25, eps=1e-3)
case("bn_no_stats", [5, 3, 2], stats=False)
case("bn_no_affine", [6, 2], affine=False)
case("bn_cumulative", [6, 4], momentum=1.0 / 3)
case("bn_momentum_1", [4, 2, 3], momentum=1.0)
case("bn_one_value_per_channel", [1, 3])

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_cases.json"), "w") as f:
    json.dump(cases, f, indent=0)
print("wrote %d cases" % len(cases))
