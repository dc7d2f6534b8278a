#!/usr/bin/python3
"""Generate grad_cases.json: PyTorch reference cases for tensor/grad.go
(the conv/pool backward kernels and scatter_add). Run with the system
python that has torch:

    /usr/bin/python3 tensor/testdata/gen_grad.py

Each case: {"name", "op", "inputs": [tensor], "params": {...},
"output": tensor}. The backward ops take (grad_output, forward input or
weight); their reference is torch.autograd.grad of the forward op.
"""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(0)
NAMES = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64"}


def enc(t):
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data": t.reshape(-1).tolist()}


cases = []


def conv(name, xs, ws, dt=torch.float64, **kw):
    x = torch.randn(*xs, dtype=dt, requires_grad=True)
    w = torch.randn(*ws, dtype=dt, requires_grad=True)
    y = F.conv2d(x, w, **kw)
    g = torch.randn_like(y)
    gx, gw = torch.autograd.grad(y, (x, w), g)
    p = {"stride": kw.get("stride", [1, 1]), "padding": kw.get("padding", [0, 0]),
         "dilation": kw.get("dilation", [1, 1]), "groups": kw.get("groups", 1)}
    cases.append({"name": name + "/input", "op": "conv2d_backward_input", "inputs": [enc(g), enc(w.detach())],
                  "params": dict(p, size=list(xs)), "output": enc(gx)})
    cases.append({"name": name + "/weight", "op": "conv2d_backward_weight", "inputs": [enc(g), enc(x.detach())],
                  "params": dict(p, size=list(ws)), "output": enc(gw)})


conv("conv_groups_strided", (2, 4, 7, 6), (6, 2, 3, 2), stride=[2, 1], padding=[1, 0], dilation=[1, 2], groups=2)
conv("conv_unbatched_pad", (3, 5, 5), (2, 3, 3, 3), padding=[1, 1])
conv("conv_f32", (1, 2, 6, 6), (3, 2, 2, 2), dt=torch.float32, stride=[2, 2])


def pool(name, op, x, **kw):
    x = x.clone().requires_grad_(True)
    y = getattr(F, op)(x, **kw)
    g = torch.randn_like(y)
    (gx,) = torch.autograd.grad(y, (x,), g)
    cases.append({"name": name, "op": op + "_backward", "inputs": [enc(g), enc(x.detach())],
                  "params": kw, "output": enc(gx)})


# Integer-valued inputs make ties: the gradient goes to the first maximum.
ties = torch.randint(0, 3, (2, 3, 6, 7)).double()
pool("maxpool_ties", "max_pool2d", ties, kernel_size=[3, 2], stride=[2, 2], padding=[1, 1], dilation=[1, 1], ceil_mode=False)
pool("maxpool_dil_ceil", "max_pool2d", torch.randn(2, 2, 9, 8, dtype=torch.float64), kernel_size=[3, 3], stride=[2, 3],
     padding=[1, 0], dilation=[2, 1], ceil_mode=True)
pool("maxpool_overlap_unbatched", "max_pool2d", torch.randn(3, 5, 5, dtype=torch.float64), kernel_size=[2, 2], stride=[1, 1],
     padding=[0, 0], dilation=[1, 1], ceil_mode=False)
pool("avgpool_pad_include", "avg_pool2d", torch.randn(2, 3, 7, 6, dtype=torch.float64), kernel_size=[3, 2], stride=[2, 2],
     padding=[1, 1], ceil_mode=True, count_include_pad=True, divisor_override=None)
pool("avgpool_pad_exclude", "avg_pool2d", torch.randn(2, 3, 7, 6, dtype=torch.float64), kernel_size=[3, 3], stride=[2, 1],
     padding=[1, 1], ceil_mode=False, count_include_pad=False, divisor_override=None)
pool("avgpool_divisor", "avg_pool2d", torch.randn(1, 2, 6, 6, dtype=torch.float32), kernel_size=[2, 2], stride=[2, 2],
     padding=[0, 0], ceil_mode=False, count_include_pad=True, divisor_override=3)
pool("adaptive_uneven", "adaptive_avg_pool2d", torch.randn(2, 3, 7, 5, dtype=torch.float64), output_size=[3, 2])
pool("adaptive_unbatched", "adaptive_avg_pool2d", torch.randn(2, 4, 4, dtype=torch.float64), output_size=[3, 3])

for dim, xs, ixs, ss in [(1, (3, 5), (2, 4), (3, 5)), (0, (4, 3), (6, 2), (6, 3)), (-1, (2, 3, 4), (2, 2, 7), (2, 3, 7))]:
    x = torch.randn(*xs, dtype=torch.float64)
    n = xs[dim]
    idx = torch.randint(0, n, ixs)
    src = torch.randn(*ss, dtype=torch.float64)
    cases.append({"name": "scatter_add_dim%d" % dim, "op": "scatter_add", "inputs": [enc(x), enc(idx), enc(src)],
                  "params": {"dim": dim}, "output": enc(torch.scatter_add(x, dim, idx, src))})

# Output columns whose input column falls in the padding for some kernel columns only (the row
# ranges convWalk computes): a wide stride with padding beyond the dilated kernel, a WaveNet-style
# dilated 1-D conv (H = 1) with left padding larger than the input's start, an empty column range.
conv("conv_stride3_widepad", (2, 3, 5, 11), (4, 3, 2, 3), stride=[1, 3], padding=[1, 5], dilation=[2, 2])
conv("conv1d_dilated", (2, 4, 1, 19), (6, 4, 1, 2), padding=[0, 8], dilation=[1, 8])
conv("conv_pad_exceeds", (1, 2, 3, 3), (2, 1, 2, 3), stride=[2, 4], padding=[2, 6], dilation=[1, 4], groups=2)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grad_cases.json")
with open(out, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f)
print("wrote", len(cases), "cases to", out)
