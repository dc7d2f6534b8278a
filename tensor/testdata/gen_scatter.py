"""PyTorch 1.13 references for tensor/scatter.go (slice_scatter, select_scatter,
out-of-place index_put). Run: /usr/bin/python3 tensor/testdata/gen_scatter.py"""
import json
import os

import torch

torch.manual_seed(0)
cases = []


def t(x):
    return {"dtype": str(x.dtype).replace("torch.", ""), "shape": list(x.shape),
            "data": x.flatten().tolist()}


x = torch.randn(4, 5)
src = torch.randn(4, 2)
cases.append({"op": "slice_scatter", "dim": 1, "start": 1, "end": 5, "step": 2,
              "x": t(x), "src": t(src), "out": t(torch.slice_scatter(x, src, 1, 1, 5, 2))})
src = torch.randn(2, 5)
cases.append({"op": "slice_scatter", "dim": 0, "start": -2, "end": None, "step": 1,
              "x": t(x), "src": t(src), "out": t(torch.slice_scatter(x, src, 0, -2, None, 1))})
src = torch.randn(4)
cases.append({"op": "select_scatter", "dim": 1, "index": -1, "x": t(x), "src": t(src),
              "out": t(torch.select_scatter(x, src, 1, -1))})
xi = torch.arange(12).reshape(3, 4)
srci = torch.tensor([7, 8, 9])
cases.append({"op": "select_scatter", "dim": 1, "index": 2, "x": t(xi), "src": t(srci),
              "out": t(torch.select_scatter(xi, srci, 1, 2))})
# index_put with a list index and a broadcast value, as x[[0, 2]] = v
v = torch.randn(5)
y = x.clone()
y[[0, 2]] = v
cases.append({"op": "index_put_list", "x": t(x), "src": t(v), "out": t(y)})

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scatter_cases.json")
with open(path, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f)
print("wrote", path)
