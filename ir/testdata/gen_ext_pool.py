#!/usr/bin/python3
"""Generate ext_cases_pool.json: PyTorch reference cases for the pooling ops
of ir/ops_pool.go (max pooling with indices, adaptive max pooling with
indices, max_unpool) and max_pool3d's ceil_mode / return_indices. Run with
the system python that has torch:

    /usr/bin/python3 ir/testdata/gen_ext_pool.py

The case format and helpers (case, r, enc, ...) are gen_ext.py's: its
helper section (everything before its first family of cases) is exec'd
here. extcases.Load reads this file after ext_cases.json. Values are
distinct (a random permutation) so no window has a tie and the float64
cases are differentiable; NaN and -inf cases check the window walk
(first maximum, last NaN, an all -inf window keeps its first element).
"""
import json
import math
import os

here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "gen_ext.py")).read()
exec(src[:src.index("\n# Activations.")])

torch.manual_seed(21)


def distinct(*shape, dtype=f32):
    n = 1
    for s in shape:
        n *= s
    return (torch.randperm(n, dtype=f64) * 0.37 - n * 0.15).reshape(*shape).to(dtype)


def nan_inf(*shape, dtype=f32):
    x = distinct(*shape, dtype=dtype).reshape(-1)
    x[1] = float("nan")
    x[3] = float("nan")
    x[4:8] = float("-inf")
    return x.reshape(*shape)


# max_pool{1,2,3}d_with_indices: kernel, stride, padding, dilation, ceil_mode;
# batched and unbatched inputs; non-contiguous input.
mp = {1: F.max_pool1d_with_indices, 2: F.max_pool2d_with_indices, 3: F.max_pool3d_with_indices}
for dt in (f32, f64):
    case("max_pool1d_with_indices", lambda x, k, s, p, d, c: mp[1](x, k, s, p, d, c), distinct(2, 3, 9, dtype=dt), 3, 2, 1, 1, False)
    case("max_pool1d_with_indices", lambda x, k, s, p, d, c: mp[1](x, k, s, p, d, c), distinct(3, 10, dtype=dt), [4], [3], [2], [2], True)
    case("max_pool2d_with_indices", lambda x, k, s, p, d, c: mp[2](x, k, s, p, d, c), distinct(2, 2, 7, 6, dtype=dt), [3, 2], [2, 1], [1, 1], [1, 2], True)
    case("max_pool2d_with_indices", lambda x, k, s, p, d, c: mp[2](x, k, s, p, d, c), distinct(3, 5, 5, dtype=dt), 2, None, 0, 1, False)
    case("max_pool2d_with_indices", lambda x, k, s, p, d, c: mp[2](x, k, s, p, d, c), distinct(2, 6, 5, 3, dtype=dt).transpose(1, 3), 3, 2, 1, 1, True)
    # the 3-D forms through max_pool3d(return_indices=True): the core op
    # max_pool3d_with_indices with its two results picked by getitem
    case("max_pool3d", lambda x, k, s, p, d, c, ri: F.max_pool3d(x, k, s, p, d, c, ri), distinct(2, 2, 5, 6, 7, dtype=dt), [2, 3, 2], [2, 2, 1], [1, 1, 0], [1, 1, 2], True, True)
    case("max_pool3d", lambda x, k, s, p, d, c, ri: F.max_pool3d(x, k, s, p, d, c, ri), distinct(2, 4, 5, 6, dtype=dt), 2, 1, 1, 1, False, True)
    case("max_pool3d", lambda x, k, s, p, d, c, ri: F.max_pool3d(x, k, s, p, d, c, ri), distinct(1, 2, 5, 5, 5, dtype=dt), 3, 2, 1, 1, True, False)
    case("max_pool3d", lambda x, k, s, p, d, c, ri: F.max_pool3d(x, k, s, p, d, c, ri), distinct(1, 2, 4, 5, 6, dtype=dt), 2, 2, 0, 1, False, True)
for k in (1, 2):
    shape = [1, 2] + [8] * k
    case("max_pool%dd_with_indices" % k, lambda x, kk, s, p, d, c: mp[k](x, kk, s, p, d, c), nan_inf(*shape), 3, 1, 1, 1, False, grad=False)
    case("max_pool%dd_with_indices" % k, lambda x, kk, s, p, d, c: mp[k](x, kk, s, p, d, c), torch.full(shape, float("-inf")), 2, 1, 1, 1, True, grad=False)
case("max_pool3d", lambda x, k, s, p, d, c, ri: F.max_pool3d(x, k, s, p, d, c, ri), nan_inf(1, 2, 8, 8, 8), 3, 1, 1, 1, False, True, grad=False)
case("max_pool3d", lambda x, k, s, p, d, c, ri: F.max_pool3d(x, k, s, p, d, c, ri), torch.full([1, 2, 8, 8, 8], float("-inf")), 2, 1, 1, 1, True, True, grad=False)
# bad windows: PyTorch raises, so does gcdbg
case("max_pool2d_with_indices", lambda x, k, s, p, d, c: mp[2](x, k, s, p, d, c), distinct(1, 1, 4, 4), 2, 1, 2, 1, False)
case("max_pool2d_with_indices", lambda x, k, s, p, d, c: mp[2](x, k, s, p, d, c), distinct(1, 1, 2, 2), 5, 1, 0, 1, False)

# adaptive_max_pool{1,2,3}d_with_indices: overlapping and uneven windows.
amp = {1: F.adaptive_max_pool1d_with_indices, 2: F.adaptive_max_pool2d_with_indices, 3: F.adaptive_max_pool3d_with_indices}
for dt in (f32, f64):
    case("adaptive_max_pool1d_with_indices", lambda x, o: amp[1](x, o), distinct(2, 3, 10, dtype=dt), 4)
    case("adaptive_max_pool2d_with_indices", lambda x, o: amp[2](x, o), distinct(2, 3, 7, 5, dtype=dt), [3, 4])
    case("adaptive_max_pool2d_with_indices", lambda x, o: amp[2](x, o), distinct(3, 6, 6, dtype=dt), 4)
    case("adaptive_max_pool3d", lambda x, o, ri: F.adaptive_max_pool3d(x, o, ri), distinct(1, 2, 5, 6, 7, dtype=dt), [2, 4, 3], True)
    case("adaptive_max_pool3d", lambda x, o, ri: F.adaptive_max_pool3d(x, o, ri), distinct(2, 4, 5, 3, dtype=dt), 2, False)
    case("adaptive_max_pool3d", lambda x, o, ri: F.adaptive_max_pool3d(x, o, ri), distinct(1, 2, 4, 5, 3, dtype=dt), [3, 2, 2], True)
case("adaptive_max_pool2d_with_indices", lambda x, o: amp[2](x, o), nan_inf(1, 2, 6, 6), 2, grad=False)

# max_unpool{1,2,3}d of a pool's own values and indices (overlapping
# windows repeat an index: the value is the same), with output_size.
mu = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}
for dt in (f32, f64):
    for k, shape, ker, st, pd, osz in ((1, (2, 3, 9), 3, 2, 1, None), (1, (3, 8), 2, 2, 0, [9]),
                                       (2, (2, 2, 7, 6), 3, 2, 1, [7, 6]), (2, (3, 6, 6), 2, 2, 0, [2, 3, 7, 7]),
                                       (3, (1, 2, 5, 6, 7), 2, 2, 0, [5, 7, 7]), (3, (2, 4, 5, 6), 3, 2, 1, [4, 5, 6])):
        x = distinct(*shape, dtype=dt)
        v, i = mp[k](x, ker, st, pd)
        # overlapping windows (kernel > stride) repeat an index: the last
        # write wins, but PyTorch's gradient (a gather) reaches every copy,
        # which finite differences cannot see: no gradcheck there
        case("max_unpool%dd" % k, lambda a, b, kk, s, p, o: mu[k](a, b, kk, s, p, o), v, i, ker, st, pd, osz, grad=ker <= st)
# an index outside the output plane; an output_size out of range
case("max_unpool2d", lambda a, b, kk, s, p, o: mu[2](a, b, kk, s, p, o), r(1, 1, 2, 2), torch.tensor([[[[0, 1], [5, 16]]]]), 2, 2, 0, None)
case("max_unpool2d", lambda a, b, kk, s, p, o: mu[2](a, b, kk, s, p, o), r(1, 1, 2, 2), torch.tensor([[[[0, 1], [5, 6]]]]), 2, 2, 0, [9, 9])

# avg pooling of int64 (sums in int64, division truncating toward zero, a
# negative divisor_override included) and avg_pool3d with ceil_mode.
ri = lambda *shape: torch.randint(-50, 50, shape, dtype=i64)
case("avg_pool1d", lambda x, k, s, p, c, ci: F.avg_pool1d(x, k, s, p, c, ci), ri(2, 3, 9), [3], [2], [1], True, False)
case("avg_pool1d", lambda x, k, s, p, c, ci: F.avg_pool1d(x, k, s, p, c, ci), ri(3, 10), [4], [3], [2], False, True)
case("avg_pool2d", lambda x, k, s, p, c, ci, d: F.avg_pool2d(x, k, s, p, c, ci, d), ri(2, 3, 7, 6), [3, 2], [2, 1], [1, 1], True, False, None)
case("avg_pool2d", lambda x, k, s, p, c, ci, d: F.avg_pool2d(x, k, s, p, c, ci, d), ri(1, 2, 5, 5), 2, None, 0, False, True, -3)
case("avg_pool2d", lambda x, k, s, p, c, ci, d: F.avg_pool2d(x, k, s, p, c, ci, d), ri(2, 6, 5), [3, 3], [2, 2], [1, 1], True, True, None)
case("avg_pool3d", lambda x, k, s, p, c, ci, d: F.avg_pool3d(x, k, s, p, c, ci, d), ri(1, 2, 5, 6, 7), [2, 3, 2], [2, 2, 1], [1, 1, 0], True, False, None)
case("avg_pool3d", lambda x, k, s, p, c, ci, d: F.avg_pool3d(x, k, s, p, c, ci, d), ri(2, 4, 5, 6), 2, 1, 1, False, True, 3)
for dt in (f32, f64):
    case("avg_pool3d", lambda x, k, s, p, c, ci, d: F.avg_pool3d(x, k, s, p, c, ci, d), r(1, 2, 5, 6, 7, dtype=dt), [2, 3, 2], [2, 2, 3], [1, 1, 0], True, True, None)
    case("avg_pool3d", lambda x, k, s, p, c, ci, d: F.avg_pool3d(x, k, s, p, c, ci, d), r(2, 4, 5, 6, dtype=dt), 3, 2, 1, True, False, None)
case("avg_pool2d", lambda x, k, s, p, c, ci, d: F.avg_pool2d(x, k, s, p, c, ci, d), torch.randint(-5, 5, (1, 1, 4, 4), dtype=torch.int32), 2, None, 0, False, True, None)

out = os.path.join(here, "ext_cases_pool.json")
with open(out, "w") as f:
    json.dump(cases, f, separators=(",", ":"))
    f.write("\n")
print("wrote", len(cases), "cases to", out)
