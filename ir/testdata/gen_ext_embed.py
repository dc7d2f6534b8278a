#!/usr/bin/python3
"""Generate ext_cases_embed.json: PyTorch reference cases for embedding with
max_norm (ir/ops_nn.go, tensor/embedding_renorm.go). Run with the system python
that has torch:

    /usr/bin/python3 ir/testdata/gen_ext_embed.py

The case format and helpers are gen_ext.py's (its helper section is exec'd
here). PyTorch renormalizes the weight in place, so each case calls F.embedding
on a clone. grad=False: the gradient deliberately ignores the scale (PyTorch
renormalizes under no_grad), so finite differences do not apply; the real2_emb
model checks the gradient against PyTorch's.
"""
import json
import math
import os

here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "gen_ext.py")).read()
exec(src[:src.index("\n# Activations.")])

torch.manual_seed(41)

def emb(idx, w, pad, mn, p):
    return F.embedding(idx, w.clone(), pad, mn, p)

for dt in (f32, f64):
    w = r(6, 4, dtype=dt, lo=-1.5, hi=1.5)
    idx = torch.tensor([[0, 2, 2], [5, 1, 0]])
    case("embedding", emb, idx, w, None, 1.0, 2.0, grad=False)
    case("embedding", emb, idx, w, None, 0.5, 1.0, grad=False)
    case("embedding", emb, idx, w, 2, 1.2, 3.0, grad=False)
    case("embedding", emb, idx, w, None, 0.7, float("inf"), grad=False)
    case("embedding", emb, torch.tensor([3, 3, 4]), w, None, 100.0, 2.0, grad=False)
case("embedding", emb, torch.tensor([1, 7]), r(6, 4), None, 1.0, 2.0, grad=False)

out = os.path.join(here, "ext_cases_embed.json")
with open(out, "w") as f:
    json.dump(cases, f, separators=(",", ":"))
    f.write("\n")
print("wrote", len(cases), "cases to", out)
