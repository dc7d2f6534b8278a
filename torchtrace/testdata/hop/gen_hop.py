"""TORCH_TRACE logs with higher-order ops and dict inputs (graceful degradation, issue 15), made by
PyTorch 2.6 in the chroot of ../shared/tools/pytorch2-chroot.sh:
    TORCH_TRACE=DIR python3 gen_hop.py cond|flex|autocast|dict   (then copy DIR/*.log to NAME.log)
"""
import sys

import torch
from torch.nn.attention.flex_attention import flex_attention
which = sys.argv[1]
torch.manual_seed(0)
if which == "cond":
    def f(x, y):
        def t(x, y): return x.sin() + y
        def e(x, y): return x.cos() - y
        return torch.cond(x.sum() > 0, t, e, (x, y)) * 2
    args = (torch.randn(4, 4), torch.randn(4, 4))
elif which == "flex":
    def f(q, k, v):
        def score_mod(score, b, h, q_idx, kv_idx):
            return score + (q_idx - kv_idx)
        return flex_attention(q, k, v, score_mod=score_mod)
    args = tuple(torch.randn(1, 2, 16, 8) for _ in range(3))
elif which == "autocast":
    def f(x, w):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ w
        return y.float().relu()
    args = (torch.randn(8, 8), torch.randn(8, 8))
elif which == "dict":
    def f(d):
        return d["a"].sin() + d["b"].cos()
    args = ({"a": torch.randn(4), "b": torch.randn(4)},)
    args = (torch.randn(4),)
out = torch.compile(f, backend="inductor")(*args)
print(which, "ok")
