#!/usr/bin/python3
"""Generate ext_cases_loss.json: PyTorch reference cases for the losses and
misc torch.nn.functional ops of ir/ops_loss.go (and the integer-dtype forms
of older ext ops). Run with the system python that has torch:

    /usr/bin/python3 ir/testdata/gen_ext_loss.py

The case format and helpers (case, r, enc, ...) are gen_ext.py's: its
helper section (everything before its first family of cases) is exec'd
here. extcases.Load reads this file after ext_cases.json.
"""
import json
import math
import os

here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "gen_ext.py")).read()
exec(src[:src.index("\n# Activations.")])

torch.manual_seed(20)

# gaussian_nll_loss: heteroscedastic, homoscedastic (var one dim short, or a
# trailing 1), full, eps clamping (var below eps), every reduction.
for dt in (f32, f64):
    x, t = r(4, 3, dtype=dt), r(4, 3, dtype=dt)
    for red in ("mean", "sum", "none"):
        case("gaussian_nll_loss", lambda a, b, v, fu, e, rd: F.gaussian_nll_loss(a, b, v, fu, e, rd), x, t, r(4, 3, dtype=dt, lo=0.1, hi=2), False, 1e-6, red)
    case("gaussian_nll_loss", lambda a, b, v, fu, e, rd: F.gaussian_nll_loss(a, b, v, fu, e, rd), x, t, r(4, dtype=dt, lo=0.1, hi=2), True, 1e-6, "none")
    case("gaussian_nll_loss", lambda a, b, v, fu, e, rd: F.gaussian_nll_loss(a, b, v, fu, e, rd), x, r(4, 1, dtype=dt), r(4, 1, dtype=dt, lo=0.1, hi=2), True, 1e-3, "mean")
    case("gaussian_nll_loss", lambda a, b, v, fu, e, rd: F.gaussian_nll_loss(a, b, v, fu, e, rd), x, t,
         torch.tensor([0.0, 1e-4, 0.5, 3.0], dtype=dt).repeat(3).view(4, 3), False, 1e-2, "none", grad=False)
case("gaussian_nll_loss", lambda a, b, v, fu, e, rd: F.gaussian_nll_loss(a, b, v, fu, e, rd), r(4, 3), r(4, 3), r(3, 3, lo=0.1), False, 1e-6, "mean")
case("gaussian_nll_loss", lambda a, b, v, fu, e, rd: F.gaussian_nll_loss(a, b, v, fu, e, rd), r(4, 3), r(4, 3), -r(4, 3, lo=0.1), False, 1e-6, "mean")

# F.unfold (im2col): batched and unbatched, kernel/dilation/padding/stride pairs.
for dt in (f32, f64):
    case("im2col", lambda a, k, d, p, s: F.unfold(a, k, d, p, s), r(2, 3, 5, 6, dtype=dt), [2, 3], [1, 2], [1, 0], [2, 1])
    case("im2col", lambda a, k, d, p, s: F.unfold(a, k, d, p, s), r(1, 2, 4, 4, dtype=dt), [3, 3], [1, 1], [1, 1], [1, 1])
    case("im2col", lambda a, k, d, p, s: torch._C._nn.im2col(a, k, d, p, s), r(2, 5, 4, dtype=dt), [2, 2], [2, 1], [0, 1], [1, 2])
case("im2col", lambda a, k, d, p, s: F.unfold(a, k, d, p, s), r(1, 1, 3, 3), [4, 4], [1, 1], [0, 0], [1, 1])

# Integer operands: the Python forms compute in the default float (float32)
# where a float scalar (margin, eps) or exp/log/tanh meets integers;
# threshold keeps the integer dtype (ATen converts threshold and value).
xi, yi = torch.randint(-4, 5, (4, 3)), torch.randint(-4, 5, (4, 3))
ti = torch.tensor([1, -1, 1, -1])
case("softsign", F.softsign, xi, grad=False)
case("tanhshrink", F.tanhshrink, xi, grad=False)
case("margin_ranking_loss", lambda a, b, c, m, rd: F.margin_ranking_loss(a, b, c, m, reduction=rd), xi[:, 0], yi[:, 0], ti, 1.0, "none", grad=False)
case("margin_ranking_loss", lambda a, b, c, m, rd: F.margin_ranking_loss(a, b, c, m, reduction=rd), xi[:, 0], yi[:, 0], ti, 0.0, "mean", grad=False)
case("poisson_nll_loss", lambda a, b, li, fu, e, rd: F.poisson_nll_loss(a, b, li, fu, eps=e, reduction=rd), xi, yi.abs(), True, True, 1e-8, "none", grad=False)
case("poisson_nll_loss", lambda a, b, li, fu, e, rd: F.poisson_nll_loss(a, b, li, fu, eps=e, reduction=rd), xi.abs() + 1, yi.abs(), False, False, 1e-8, "sum", grad=False)
case("pairwise_distance", F.pairwise_distance, xi, yi, 2.0, 1e-6, False, grad=False)
case("triplet_margin_loss", lambda a, p, n, m, pp, e, sw, rd: F.triplet_margin_loss(a, p, n, m, pp, e, sw, reduction=rd),
     xi, yi, torch.randint(-4, 5, (4, 3)), 1.0, 1, 1e-6, True, "none", grad=False)
case("threshold", lambda a, t, v: F.threshold(a, t, v), xi, 0, -7, grad=False)
case("threshold", lambda a, t, v: F.threshold(a, t, v), xi, 1.5, -2.7, grad=False)

# bilinear, cosine embedding, pdist, native_layer_norm, group_norm,
# multilabel soft margin, multi margin.
for dt in (f32, f64):
    case("bilinear", F.bilinear, r(2, 3, 4, dtype=dt), r(2, 3, 5, dtype=dt), r(6, 4, 5, dtype=dt), r(6, dtype=dt))
    case("bilinear", F.bilinear, r(4, dtype=dt), r(3, dtype=dt), r(2, 4, 3, dtype=dt), None)
    case("bilinear", F.bilinear, r(0, 4, dtype=dt), r(0, 3, dtype=dt), r(2, 4, 3, dtype=dt), r(2, dtype=dt))
    for red in ("mean", "sum", "none"):
        case("cosine_embedding_loss", lambda a, b, t, m, rd: F.cosine_embedding_loss(a, b, t, m, reduction=rd), r(4, 5, dtype=dt), r(4, 5, dtype=dt), torch.tensor([1, -1, -1, 1], dtype=dt), 0.2, red)
    case("cosine_embedding_loss", lambda a, b, t, m, rd: F.cosine_embedding_loss(a, b, t, m, reduction=rd), r(5, dtype=dt), r(5, dtype=dt), torch.tensor(-1, dtype=dt), -0.5, "none")
    for pp in (2.0, 1.0, 0.0, 10.0, float("inf"), 0.5):
        case("pdist", F.pdist, r(4, 3, dtype=dt), pp, grad=pp != 0.0)
    case("pdist", F.pdist, r(1, 3, dtype=dt), 2.0)
    # grad=False: PyTorch differentiates only the output (mean and rstd
    # carry no gradient), which finite differences of all three would not
    # match; the output's gradient is layer_norm's, gradchecked there.
    case("native_layer_norm", torch.native_layer_norm, r(2, 3, 4, dtype=dt), [3, 4], r(3, 4, dtype=dt), r(3, 4, dtype=dt), 1e-5, grad=False)
    case("native_layer_norm", torch.native_layer_norm, r(3, 4, dtype=dt), [4], None, None, 0.5, grad=False)
    case("group_norm", lambda a, g, w, b, e: F.group_norm(a, g, w, b, e), r(2, 6, 3, dtype=dt), 3, r(6, dtype=dt), r(6, dtype=dt), 1e-5)
    case("group_norm", lambda a, g, w, b, e: F.group_norm(a, g, w, b, e), r(2, 4, 2, 3, dtype=dt), 2, None, None, 0.5)
    for red in ("mean", "sum", "none"):
        case("multilabel_soft_margin_loss", lambda a, t, w, rd: F.multilabel_soft_margin_loss(a, t, w, reduction=rd), r(3, 5, dtype=dt), (torch.rand(3, 5) > 0.5).to(dt), r(5, dtype=dt), red)
    case("multilabel_soft_margin_loss", lambda a, t, w, rd: F.multilabel_soft_margin_loss(a, t, w, reduction=rd), r(5, dtype=dt), r(5, dtype=dt, lo=0, hi=1), None, "none")
    tgt = torch.tensor([2, 0, 4])
    case("multi_margin_loss", lambda a, t, p, m, w, rd: F.multi_margin_loss(a, t, p, m, w, reduction=rd), r(3, 5, dtype=dt), tgt, 1, 1.0, None, "mean")
    case("multi_margin_loss", lambda a, t, p, m, w, rd: F.multi_margin_loss(a, t, p, m, w, reduction=rd), r(3, 5, dtype=dt), tgt, 2, 0.7, r(5, dtype=dt, lo=0.1, hi=1), "none")
    case("multi_margin_loss", lambda a, t, p, m, w, rd: F.multi_margin_loss(a, t, p, m, w, reduction=rd), r(5, dtype=dt), torch.tensor([3]), 1, 1.0, None, "none")
    case("multi_margin_loss", lambda a, t, p, m, w, rd: F.multi_margin_loss(a, t, p, m, w, reduction=rd), r(5, dtype=dt), torch.tensor(1), 2, 1.0, None, "sum")
case("multi_margin_loss", lambda a, t, p, m, w, rd: F.multi_margin_loss(a, t, p, m, w, reduction=rd), r(3, 5), torch.tensor([2, 0]), 1, 1.0, None, "mean")
case("bilinear", F.bilinear, torch.randint(-3, 4, (2, 4)), torch.randint(-3, 4, (2, 3)), torch.randint(-3, 4, (5, 4, 3)), torch.randint(-3, 4, (5,)), grad=False)
case("cosine_embedding_loss", lambda a, b, t, m, rd: F.cosine_embedding_loss(a, b, t, m, reduction=rd), torch.randint(-3, 4, (4, 5)), torch.randint(-3, 4, (4, 5)), torch.tensor([1, -1, -1, 1]), 0.2, "none", grad=False)
case("group_norm", lambda a, g, w, b, e: F.group_norm(a, g, w, b, e), r(2, 6, 3), 4, None, None, 1e-5)

# local_response_norm of integers: F's avg_pool of the int64 squares
# divides truncating; alpha, k, beta then take it to float32.
case("local_response_norm", lambda a, n, al, be, k: F.local_response_norm(a, n, al, be, k), torch.randint(-9, 10, (2, 5, 3)), 3, 0.1, 0.75, 1.0, grad=False)
case("local_response_norm", lambda a, n, al, be, k: F.local_response_norm(a, n, al, be, k), torch.randint(-9, 10, (1, 4, 2, 3)), 2, 3e-2, 0.5, 1.25, grad=False)
case("local_response_norm", lambda a, n, al, be, k: F.local_response_norm(a, n, al, be, k), torch.randint(-9, 10, (0, 4, 3)), 2, 1e-4, 0.75, 1.0, grad=False)

# multilabel_margin_loss: the targets before the first -1 count.
for dt in (f32, f64):
    y = torch.tensor([[3, 0, -1, 1, 2], [1, 4, 2, 0, 3], [-1, 2, 0, 1, 1], [2, 2, -1, 0, 0]])
    for red in ("mean", "sum", "none"):
        case("multilabel_margin_loss", lambda a, t, rd: F.multilabel_margin_loss(a, t, reduction=rd), r(4, 5, dtype=dt), y, red)
    case("multilabel_margin_loss", lambda a, t, rd: F.multilabel_margin_loss(a, t, reduction=rd), r(5, dtype=dt), torch.tensor([4, 1, -1, 0, 0]), "none")
    case("multilabel_margin_loss", lambda a, t, rd: F.multilabel_margin_loss(a, t, reduction=rd), r(1, dtype=dt).view([]), torch.tensor(0), "none")

out = os.path.join(here, "ext_cases_loss.json")
with open(out, "w") as f:
    json.dump(cases, f, separators=(",", ":"))
    f.write("\n")
print("wrote", len(cases), "cases to", out)
