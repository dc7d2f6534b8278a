"""Traces for runner/dtypes_test.go (TestDTypeSemanticsMatchPyTorch), exported with PyTorch 1.13:
    /usr/bin/python3 runner/testdata/dtypes/gen.py
Each is a case the OpInfo conformance run in float64, float16, bfloat16, int32, int8 and uint8
found (or a neighbour of one), judged eager and compiled against PyTorch's values."""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "exporter"))
from gcdbg_export import export  # noqa: E402


def floordiv_f32(a, b):
    # 1 // 0.1 is 9 in PyTorch (through fmod), floor(1 / 0.1) = 10
    return torch.div(a, b, rounding_mode="floor"), torch.remainder(a, b)


def narrow_chain(x, y):
    # pointwise ops and reductions in a narrow float, with grads (PyTorch
    # 1.13's CPU float16 has arithmetic and reductions, no exp or tanh)
    h = x * y + 0.1
    return (x - y).abs() / 3, h.sum(dim=0), h.amax(dim=1), h.mean()


def bf16_math(x, w):
    # bfloat16 on PyTorch's CPU has the math functions and matmuls too
    h = torch.tanh(x @ w) * torch.sigmoid(x[:, :8])
    return torch.softmax(h, dim=-1), torch.exp(h * 0.5).sum(dim=1)


def narrow_cast(dt):
    def f(x):
        # casts into and out of the narrow type round; a scalar operand is
        # rounded to the tensor's dtype
        return (x.float() * 1.001).to(dt) + 0.3, x.double() / 3
    return f


def int_wrap(a, b):
    # uint8/int8 wrap around, Python floor division and remainder of
    # integers, true division promotes to float32
    return a + b, a * b, a - b, torch.div(a, b, rounding_mode="floor"), torch.remainder(a, b), a / b


def any_all_uint8(x):
    # any/all of a uint8 tensor are uint8 in PyTorch (bool for every other dtype)
    return torch.any(x), x.any(dim=1), x.all(dim=0)


def to_other_dtype(x, y):
    # x.to(y.dtype): fx records getattr(y, "dtype"), a dtype, as the argument
    return (y.float() * 1.001).to(x.dtype) + 0.3, y.to(x.dtype) * 2


def main():
    g = torch.Generator().manual_seed(0)
    cases = [
        ("floordiv_f32", floordiv_f32,
         (torch.tensor([1., -1., 0.3, 7., -7., 5.5, 1e-3, 3., 1e30, -2.5]),
          torch.tensor([0.1, 0.1, 0.1, 0.7, 0.7, -1.1, 1e-4, 0.3, 1e-10, 0.5]))),
    ]
    for dt in (torch.float16, torch.bfloat16):
        n = str(dt).replace("torch.", "")
        x = torch.randn(6, 40, generator=g).to(dt).requires_grad_()
        y = torch.randn(6, 40, generator=g).to(dt).requires_grad_()
        cases.append(("chain_" + n, narrow_chain, (x, y)))
        cases.append(("cast_" + n, narrow_cast(dt), (torch.randn(7, 5, generator=g).to(dt),)))
    cases.append(("math_bfloat16", bf16_math, (torch.randn(6, 16, generator=g).bfloat16().requires_grad_(),
                                               torch.randn(16, 8, generator=g).bfloat16().requires_grad_())))
    for dt in (torch.uint8, torch.int8, torch.int32):
        n = str(dt).replace("torch.", "")
        lo, hi = (0, 256) if dt == torch.uint8 else ((-128, 128) if dt == torch.int8 else (-1000, 1000))
        a = torch.randint(lo, hi, (64,), generator=g).to(dt)
        b = torch.randint(lo, hi, (64,), generator=g).to(dt)
        b[b == 0] = 3
        cases.append(("int_" + n, int_wrap, (a, b)))
    cases.append(("any_all_uint8", any_all_uint8, (torch.tensor([[0, 3, 0], [0, 0, 0], [1, 2, 255]], dtype=torch.uint8),)))
    cases.append(("to_other_dtype", to_other_dtype, (torch.randn(7, 5, generator=g).half(), torch.randn(7, 5, generator=g))))
    for name, f, args in cases:
        export(f, args, name, os.path.join(HERE, name + ".json"), sources=[], runs=0)
        print("wrote", name)


if __name__ == "__main__":
    main()
