#!/usr/bin/env python3
"""Evidence for conformance/xfail.tsv (TestXFailEvidence runs it with the system PyTorch).

PyTorch 1.13's CPU fmod, remainder and floor division (ATen BinaryOpsKernel.cpp) run the same inputs
through two paths: Vectorized lanes, 32 bfloat16 elements at a time (Vectorized<float>::fmod on the
widened halves), and a scalar loop for the tail (std::fmod in float). Where the float quotient |a/b|
overflows, the lanes give NaN and the tail the exact value. The same element at a lane position and at
a tail position of the same kind of tensor therefore differs, so PyTorch's value there is not the op's:
float64 agrees with the tail (and with gcdbg). Prints one line per check; exits 1 if one fails.
"""
import math
import sys

import torch

torch.set_num_threads(1)
ok = True


def check(name, cond, detail):
    global ok
    ok = ok and cond
    print("%s %s: %s" % ("ok  " if cond else "FAIL", name, detail))


def same(x, y):
    return (math.isnan(x) and math.isnan(y)) or (x == y and math.copysign(1, x) == math.copysign(1, y))


b = torch.tensor(1.1755e-38, dtype=torch.bfloat16)  # the OpInfo samples' tiny divisor (bfloat16/3, /5)
ops = {
    "fmod": lambda a, d: torch.fmod(a, d),
    "remainder": lambda a, d: torch.remainder(a, d),
    "div.floor_rounding": lambda a, d: torch.div(a, d, rounding_mode="floor"),
}
for name, f in ops.items():
    lanes = f(torch.full((32,), -4.9375, dtype=torch.bfloat16), b)  # one full 32-element vector step
    tail = f(torch.full((31,), -4.9375, dtype=torch.bfloat16), b)   # shorter than a step: the scalar loop
    mixed = f(torch.full((40,), -4.9375, dtype=torch.bfloat16), b)  # 32 lanes, then an 8-element tail
    f64 = f(torch.tensor(-4.9375, dtype=torch.float64), b.double()).item()
    f64_bf16 = torch.tensor(f64, dtype=torch.float64).to(torch.bfloat16).item()
    check(name + " lanes", all(math.isnan(v) for v in lanes.float().tolist()), "32 elements: %s" % lanes[0].item())
    check(name + " tail", all(same(v, f64_bf16) for v in tail.float().tolist()),
          "31 elements: %s; float64 %r (as bfloat16 %r)" % (tail[0].item(), f64, f64_bf16))
    check(name + " one tensor", math.isnan(mixed[0].item()) and same(mixed[-1].item(), f64_bf16),
          "40 equal elements: [0] %s, [39] %s" % (mixed[0].item(), mixed[-1].item()))

# remainder's gradient wrt the divisor, -grad * floor(a / b): NaN in the lanes, +Inf in the tail
for n in (32, 31):
    a = torch.full((n,), -4.9375, dtype=torch.bfloat16)
    d = b.expand(n).clone().requires_grad_()
    torch.remainder(a, d).sum().backward()
    g = d.grad[0].item()
    check("remainder grad %d" % n, math.isnan(g) if n == 32 else g == math.inf, "d/d(divisor) %s" % g)
# --- native_layer_norm float32/8, /10, /11: a row of one element. Its mean is the element, so the op's
# value is exactly 0 * w + b. PyTorch 1.13's kernel (LayerNormKernelImplInternal) computes
# y = (x * scale + bias) * w + b with scale = rstd, bias = -rstd * mean rounded to float, and the
# compiler fuses x * scale + bias into one fused multiply-add: what is left is the rounding error of
# the float product rstd * x (up to 1.2e-4 for rstd = 316), not a value of the op.
def f32(v):
    return torch.tensor(v, dtype=torch.float64).float().double().item()


h = float.fromhex  # the samples' float32 values, exactly
for sid, x, w, b in (("8", h("-0x1.c1541p+2"), h("0x1.1f9bp+2"), h("0x1.e23af4p+0")),
                     ("10", h("0x1.0eef9p+3"), h("0x1.1f9bp+2"), None),
                     ("11", h("0x1.841e7cp+2"), None, None)):
    t = lambda v: None if v is None else torch.tensor([v], dtype=torch.float32)
    y, mean, rstd = torch.native_layer_norm(t(x), [1], t(w), t(b), 1e-5)
    r = rstd.double().item()
    fused = f32(x * r + f32(-r * x))  # x * r is exact in double: one rounding, as the fused multiply-add
    if w is not None:
        fused = f32(fused * w + (b or 0.0))
    exact = b or 0.0
    check("native_layer_norm/float32/%s fma" % sid, y.double().item() == fused and fused != exact,
          "PyTorch %r = fma(x, rstd, -fl(rstd*x)) * w + b = %r bit for bit; the op's value %r" % (y.item(), fused, exact))
    two = torch.native_layer_norm(torch.tensor([[x], [2 * x]]), [1], t(w), t(b), 1e-5)[0].double().flatten().tolist()
    check("native_layer_norm/float32/%s rows" % sid, two[0] != two[1],
          "rows [x] and [2x] of one tensor (both normalize to 0, the same rstd): %r vs %r" % tuple(two))
    comp = (t(x) - t(x).mean()) * torch.rsqrt(t(x).var(unbiased=False) + 1e-5)
    comp = comp * (t(w) if w is not None else 1) + (t(b) if b is not None else 0)
    check("native_layer_norm/float32/%s composite" % sid, comp.double().item() == f32(exact),
          "PyTorch's own (x - mean) * rsqrt(var + eps) * w + b: %r" % comp.item())


# --- native_layer_norm bfloat16/1, /2, /4, /6: in bfloat16 the kernel's mean and variance are a
# Welford recurrence in bfloat16 (every step rounded), so they depend on the order of the row: the same
# values reversed, in another row of the same tensor, give another mean (the exact one, torch.mean's, in
# these samples), and the gradient of sum(layer_norm(x)) (0 in exact arithmetic) is noise of that mean.
def bf(v):
    return torch.tensor(v, dtype=torch.float32).to(torch.bfloat16).float().item()


def welford_bf16(row):
    m1 = m2 = 0.0
    for k, v in enumerate(row, 1):
        d = bf(v - m1)
        m1 = bf(m1 + bf(d / k))
        m2 = bf(m2 + bf(d * bf(v - m1)))
    return m1


ln_rows = {"1": [[-4.9375, 4.5625, 7.15625, -6.25, -2.875, 3.25]],
           "2": [[-2.8125, -3.3125, 2.609375, -7.25, -3.578125, -3.9375]],
           "4": [[1.0, 2.75, -6.75, 4.5625, -8.375, 4.0], [-0.0625, -6.75, -6.8125, 5.1875, 8.125, 1.625]],
           "6": [[-6.3125, 7.28125, 8.125, -7.78125, -3.4375, 0.25], [-1.625, -6.0625, 4.0625, -6.8125, -0.5625, -8.875]]}
for sid, rows in ln_rows.items():
    x = torch.tensor(rows, dtype=torch.bfloat16)
    both = torch.cat([x, x.flip(1)])
    m = torch.native_layer_norm(both, [6], None, None, 0.5)[1].float().flatten().tolist()
    n = len(rows)
    check("native_layer_norm/bfloat16/%s order" % sid, any(a != b for a, b in zip(m[:n], m[n:])),
          "mean of the rows %r, of the same rows reversed in the same tensor %r, torch.mean %r, float64 %r"
          % (m[:n], m[n:], x.mean(1).float().tolist(), x.double().mean(1).tolist()))
    check("native_layer_norm/bfloat16/%s welford" % sid, [welford_bf16(r) for r in x.float().tolist()] == m[:n],
          "a Welford recurrence in bfloat16 gives PyTorch's means bit for bit")
x1 = torch.tensor(ln_rows["1"], dtype=torch.bfloat16)
g = []
for xx in (x1, x1.flip(1)):
    xx = xx.clone().requires_grad_()
    torch.native_layer_norm(xx, [6], None, None, 0.5)[0].sum().backward()
    g.append(xx.grad)
check("native_layer_norm/bfloat16/1 grad", not torch.equal(g[0], g[1].flip(1)) and g[0].abs().max().item() > 1e-4,
      "d sum(layer_norm(x)) / dx, 0 in exact arithmetic: %r; of the reversed row, reversed back: %r"
      % (g[0].float().tolist(), g[1].flip(1).float().tolist()))


# --- nn.functional.nll_loss/bfloat16/53 (reduction='sum'): PyTorch sums the picked -x in bfloat16, so
# the sum depends on their order: the same input and target flipped along the last dim give another sum.
import torch.nn.functional as F  # noqa: E402

nx = torch.tensor([[[[4.625, 1.390625], [3.171875, 4.0]], [[5.5625, -0.625], [2.515625, -1.625]],
                    [[4.375, -8.75], [7.96875, 8.0]]], [[[5.4375, 2.125], [-1.328125, -2.875]],
                    [[6.875, 2.453125], [-3.875, 6.3125]], [[3.875, -7.15625], [-0.6875, -7.46875]]]],
                  dtype=torch.bfloat16)
nt = torch.tensor([[[0, 1], [1, 0]], [[1, 2], [0, 0]]])
a = F.nll_loss(nx, nt, reduction="sum").item()
b_ = F.nll_loss(nx.flip(3), nt.flip(2), reduction="sum").item()
e = F.nll_loss(nx.double(), nt, reduction="sum").item()
check("nll_loss/bfloat16/53 order", a != b_ and e == bf(e),
      "sum %r; flipped along the last dim %r; float64 %r (a bfloat16 value)" % (a, b_, e))


# --- nn.functional.softmin/bfloat16/1 (dim=0): the gradient of sum(softmin(x)) is 0 in exact arithmetic
# (each column sums to 1); PyTorch's is the noise of its bfloat16-rounded outputs, and it differs between
# identical columns of one tensor: the 5x5 sample tiled 8 times along dim 1 gets one gradient in the
# vector lanes and another (the recorded one) in the scalar tail.
sx = torch.tensor([[8.625, 4.6875, -1.75, -8.375, 5.8125], [-7.5, 8.0, -6.5, -2.875, -4.0625],
                   [6.1875, -2.8125, 0.875, -4.9375, 4.5625], [7.15625, -6.25, -2.875, 3.25, -2.8125],
                   [-3.3125, 2.609375, -7.25, -3.578125, -3.9375]], dtype=torch.bfloat16)
gs = []
for xx in (sx, torch.cat([sx] * 8, 1)):
    xx = xx.clone().requires_grad_()
    F.softmin(xx, dim=0).sum().backward()
    gs.append(xx.grad.float())
tiles = [gs[1][:, 5 * k:5 * k + 5] for k in range(8)]
xd = sx.double().requires_grad_()
F.softmin(xd, dim=0).sum().backward()
k = int((tiles[0] - tiles[7]).abs().argmax())
i, j = k // 5, k % 5
check("softmin/bfloat16/1 tiles", torch.equal(tiles[7], gs[0]) and not torch.equal(tiles[0], tiles[7]),
      "element [%d, %d]: alone %r (recorded); tiled, first copy %r, last copy %r; float64 %r"
      % (i, j, gs[0][i, j].item(), tiles[0][i, j].item(), tiles[7][i, j].item(), xd.grad[i, j].item()))


# --- nn.functional.embedding_bag/float16/5: the gradient of per_sample_weights is the dot of the
# weight row with the output's gradient (ones), which PyTorch accumulates in float16: the order of
# the embedding dim changes it (a rotation of the 5 columns gives the exact sum, 2.888671875).
ew = torch.tensor([[-8.203125, 2.998046875, -5.28125, 4.84375, 8.53125],
                   [5.8203125, 3.640625, 5.7734375, -2.7578125, -0.5],
                   [-6.59375, -1.439453125, -8.625, 0.7265625, -5.1953125],
                   [-1.890625, -8.1875, 1.53125, 3.560546875, -7.234375],
                   [7.53125, -4.625, -4.78125, 8.671875, -6.109375]], dtype=torch.float16)
eidx, eoff = torch.tensor([4, 0, 1, 0, 4, 1]), torch.tensor([0, 3])
epsw = torch.tensor([-1.017578125, -4.109375, -1.220703125, -2.275390625, 2.828125, 5.4765625],
                    dtype=torch.float16)


def psw_grad(w):
    w, p = w.clone().requires_grad_(), epsw.clone().requires_grad_()
    F.embedding_bag(eidx, w, eoff, mode="sum", per_sample_weights=p, padding_idx=-1).sum().backward()
    return p.grad.float().tolist()


ga, gb = psw_grad(ew), psw_grad(ew[:, [2, 3, 4, 0, 1]])
check("embedding_bag/float16/5 order", ga[1] != gb[1] and gb[1] == ew[0].double().sum().item(),
      "d/d per_sample_weights[1] (row 0 summed): %r; columns rotated %r; float64 %r"
      % (ga[1], gb[1], ew[0].double().sum().item()))

# --- nn.functional.instance_norm/bfloat16/5, /6: the gradient of sum(instance_norm(x)) with respect to x
# is 0 in exact arithmetic (float64 gives 1e-16; gcdbg 0). PyTorch 1.13's bfloat16 batch_norm backward
# (which instance_norm calls) leaves the noise of its bfloat16 statistics, and not the same noise for
# the same values: the recorded gradient (grad_output = ones, contiguous, as the exporter's loss makes
# it) and the one for the same ones expanded from one element (what y.sum().backward() passes) differ.
inorm = {
    "5": ([1.328125, -3.9375, 5.0, -2.875, -8.125, -4.9375, -3.3125, -0.5625, -0.875, 3.875, -4.5, 5.25, 6.5,
           2.515625, -7.25, -6.75, 2.9375, -8.0, 6.0625, -7.0, -7.625, 5.75, -4.25, -7.46875, 6.9375, -0.4375,
           -3.171875, 0.5, 5.0625, -4.6875, 0.9375, -8.625, -9.0, 0.5625, 5.5625, 5.5625, 3.734375, 0.75, -8.75,
           2.75, -2.515625, 3.171875, -7.15625, -3.8125, -5.375, 7.75, 3.4375, 6.375, -5.4375, 6.9375, -1.625,
           -7.75, -0.75, -6.625, -5.4375, 2.125, 3.734375, -4.9375, 3.015625, -5.125, 8.75, 8.75, -7.75, 3.171875,
           -2.875, 4.5625, -4.0625, 7.46875, -5.25, -5.625, -2.375, -4.875],
          [4.3125, 8.375], [3.0625, 5.625], [0.5625, 3.9375], [-2.609375, -2.453125], -1.0, 0.5),
    "6": ([-4.9375, 3.4375, -1.5625, 5.125, -5.875, -8.125, -0.5, -4.0625, -6.3125, 2.75, 0.5625, -8.125, 8.5, 0.5,
           5.625, 8.5, -7.46875, 8.5, -3.4375, 6.25, -8.5, 6.9375, -8.625, 5.6875, 5.0, 5.875, 6.25, 4.625, -4.75,
           1.125, -5.0625, -1.0, 7.65625, 1.625, -7.28125, -8.75, -1.984375, 7.625, -5.5625, -2.875, -6.875,
           -5.1875, 1.75, -7.625, -2.1875, -1.890625, 4.0, 1.625, 1.890625, -6.9375, 2.3125, -0.9375, -5.25, -0.625,
           3.578125, -2.9375, 8.25, -8.5, -1.625, 7.96875, 0.625, 3.8125, 0.0, -3.171875, -0.5625, 2.515625, 5.6875,
           1.390625, -0.75, 7.875, -8.75, -0.125],
          [2.8125, 5.40625], [4.375, 5.71875], [-6.0625, -4.4375], None, 0.1, 1e-5),
}
for sid, (xv, rm, rv, w, b, mom, eps) in inorm.items():
    def ingrad(dtype, expand):
        x = torch.tensor(xv, dtype=dtype).reshape(3, 2, 3, 4).requires_grad_()
        t = lambda v: None if v is None else torch.tensor(v, dtype=dtype)
        y = F.instance_norm(x, t(rm), t(rv), t(w), t(b), use_input_stats=True, momentum=mom, eps=eps)
        go = torch.ones(1, dtype=dtype).expand(y.shape) if expand else torch.ones_like(y)
        y.backward(go)
        return x.grad.double()
    gc, ge, gd = ingrad(torch.bfloat16, False), ingrad(torch.bfloat16, True), ingrad(torch.float64, False)
    check("instance_norm/bfloat16/%s layout" % sid, not torch.equal(gc, ge) and gd.abs().max().item() < 1e-12,
          "max |grad|: ones contiguous %.3g, the same ones expanded %.3g, they differ by %.3g; float64 %.3g"
          % (gc.abs().max().item(), ge.abs().max().item(), (gc - ge).abs().max().item(), gd.abs().max().item()))

# --- nn.functional.instance_norm/bfloat16/1: the running_mean written back. PyTorch 1.13 updates a
# bfloat16 batch's running mean in bfloat16 arithmetic (batch_norm_cpu_update_stats_template with
# param_t = BFloat16: the batch mean stored as bfloat16, momentum cast to it, every product and the sum
# rounded; instance_norm then averages the N updated copies in bfloat16). Its value is that chain bit
# for bit (gcdbg's too), while the same update of the same bfloat16 values in float32, rounded once,
# gives the bfloat16 nearest the float64 value: channel 2 is 3.28125 against 3.265625 (float64 3.260625).
xi = torch.tensor([4.6875, -3.25, 3.25, 6.9375, 1.390625, 5.6875, -5.5, 1.890625, -8.0, -6.125, -4.9375, 4.5625, -6.5, -8.25, -2.9375, -6.0, -1.6875, -8.25, -8.875, -5.4375, -3.375, -6.75, 3.8125, 0.0, -6.3125, -7.65625, 3.25, -6.0625, -0.9375, 3.9375, 4.25, 7.28125, -3.578125, -6.875, -7.28125, -0.1875, -8.875, -8.75, -2.375, 6.875, -1.484375, -8.125, -1.125, -6.1875, -3.9375, -7.65625, -2.3125, -3.9375, 1.8125, 4.625, 8.5, 3.640625, -4.3125, 7.625, -4.6875, -8.0, -2.25, -8.75, 4.6875, 7.65625, 0.75, 8.75, -2.9375, 5.4375, -0.5, -1.328125, -3.734375, 3.9375, -7.875, 1.6875, 2.046875, 1.484375, -1.25, -7.25, 5.625, 4.25, -0.5, -0.6875, -0.75, 4.3125, -3.171875, 2.3125, -1.6875, 2.25, 7.0, 8.625, 8.625, -0.5, -4.0625, 6.0, -6.8125, -8.125, -4.0, 3.9375, 1.6875, -3.4375, -6.125, -7.75, -6.1875, 3.8125, 5.5625, -8.25, 2.6875, -1.1875, -2.453125, 8.5, 0.0625, 6.6875, -0.6875, -5.875, 6.1875, -0.1875, -7.28125, -4.3125, 5.75, 7.78125, -8.75, 7.46875, 5.375, 7.15625, -6.5625, 6.0625, 8.875, 4.3125, 4.875], dtype=torch.bfloat16).reshape(5, 5, 5)
rmi = [4.46875, 0.80859375, 6.5625, 4.5625, 4.25]
rvi = [3.4375, 2.1875, 5.71875, 7.8125, 4.3125]
def inorm_rm(dtype):
    rm, rv = torch.tensor(rmi, dtype=dtype), torch.tensor(rvi, dtype=dtype)
    F.instance_norm(xi.to(dtype), rm, rv, use_input_stats=True, momentum=0.5, eps=0.6)
    return rm
pt_bf16, pt_f32, pt_f64 = inorm_rm(torch.bfloat16), inorm_rm(torch.float32), inorm_rm(torch.float64)
def bfr(v):
    return torch.tensor(v, dtype=torch.float32).to(torch.bfloat16).float().item()
chain = []
for c in range(5):
    m, keep = bfr(0.5), bfr(1 - bfr(0.5))
    ups = [bfr(bfr(m * bfr(xi[n, c].float().mean().item())) + bfr(keep * bfr(rmi[c]))) for n in range(5)]
    chain.append(bfr(bfr(sum(ups)) / 5))
check("instance_norm/bfloat16/1 running_mean chain", pt_bf16.float().tolist() == chain,
      "PyTorch bfloat16 %s, the bfloat16 update chain %s" % (pt_bf16.float().tolist(), chain))
check("instance_norm/bfloat16/1 running_mean float32", pt_bf16[2].item() != pt_f32.to(torch.bfloat16)[2].item()
      and pt_f32.to(torch.bfloat16)[2].item() == pt_f64.to(torch.bfloat16)[2].item(),
      "channel 2: bfloat16 run %s, float32 run rounded %s, float64 %r" % (pt_bf16[2].item(), pt_f32.to(torch.bfloat16)[2].item(), pt_f64[2].item()))

sys.exit(0 if ok else 1)
