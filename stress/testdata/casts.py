"""Float-to-integer casts where C leaves the result undefined: NaN, +-Inf and
values outside the integer's range (and negative values to uint8). The
expected outputs are PyTorch 1.13's on the CPU; gcdbg's eager interpreter
and its generated C must give the same numbers (stress/casts_test.go)."""
import torch

NAME = "casts"


def f(x, d):
    outs = []
    for v in (x, d):
        for dt in (torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool):
            outs.append(v.to(dt))
    # Computed NaN/Inf (not only loaded ones): the cast of a fused value.
    y = (x * 2.0).to(torch.int32)
    return tuple(outs) + (y,)


def make():
    vals = [float("nan"), float("inf"), float("-inf"), 3e9, -3e9, 1e20, -1e20, 2.7, -2.7,
            300.5, -1.5, 255.9, 65537.3, -129.2, 2147483520.0, -2147483648.0,
            9.3e18, -9.3e18, 0.0, -0.0, 127.5, -128.5, 4294967296.5, 1e-30]
    x = torch.tensor(vals, dtype=torch.float32)
    d = torch.tensor(vals, dtype=torch.float64)
    return f, (x, d)
