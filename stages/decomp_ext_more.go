package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decompositions of ir/ops_ext_more.go.

func init() {
	decompositions = append(decompositions, extMoreDecompositions...)
	sortDecompositions()
}

func (b *builder) pairwise(x1, x2 ir.Arg, p, eps float64, keep bool) ir.Arg {
	d := b.o("add", b.o("sub", x1, x2), eps)
	if len(b.shape(d)) == 0 {
		return b.vectorNorm(d, p, nil, keep, nil)
	}
	return b.vectorNorm(d, p, ir.Tuple{int64(-1)}, keep, nil)
}

func (b *builder) zeroLike(x ir.Arg) ir.Arg { return b.o("full", ir.Tuple{}, int64(0), b.dtype(x)) }

var extMoreDecompositions = []decomposition{
	{"aten.logaddexp", "logaddexp(a, b) = where(isinf(a) & a == b, a, maximum(a, b) + log1p(exp(-|a - b|)))",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, y := a[0], a[1]
			r := b.o("add", b.o("maximum", x, y), b.o("log1p", b.o("exp", b.o("neg", b.o("abs", b.o("sub", x, y))))))
			same := b.o("logical_and", b.o("isinf", x), b.o("eq", x, y))
			return b.o("where", same, x, r)
		}},
	{"aten.xlogy", "xlogy(x, y) = where(isnan(y), nan, where(x == 0, 0, x * log(where(x == 0, 1, y))))",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, y := a[0], a[1]
			z := b.o("eq", x, int64(0))
			v := b.o("mul", x, b.o("log", b.o("where", z, b.o("full", ir.Tuple{}, int64(1), b.dtype(y)), y)))
			dt := b.dtype(v)
			v = b.o("where", z, b.o("full", ir.Tuple{}, int64(0), dt), v)
			return b.o("where", b.o("isnan", y), b.o("full", ir.Tuple{}, math.NaN(), dt), v)
		}},
	{"aten.frac", "frac(x) = x - trunc(x)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.o("sub", a[0], b.o("trunc", a[0])) }},
	{"aten.diff", "diff(x, n, d) = slice(x, d, 1, N) - slice(x, d, 0, N - 1), n times (logical_xor for bool)",
		func(b *builder, a []ir.Arg) ir.Arg {
			if a[3] != nil || a[4] != nil {
				b.failf("diff: prepend/append are not supported by gcdbg")
				return nil
			}
			x := a[0]
			xs := b.shape(x)
			if len(xs) == 0 {
				b.failf("diff expects input to be at least one-dimensional")
				return nil
			}
			d := b.dim(a[2], len(xs))
			n := b.int(a[1])
			for k := 0; k < n && b.shape(x)[d] > 0; k++ {
				m := b.shape(x)[d]
				hi := b.o("slice", x, int64(d), int64(1), int64(m))
				lo := b.o("slice", x, int64(d), int64(0), int64(m-1))
				if b.dtype(x) == tensor.Bool {
					x = b.o("logical_xor", hi, lo)
				} else {
					x = b.o("sub", hi, lo)
				}
			}
			if x == a[0] {
				return b.o("clone", x)
			}
			return x
		}},
	{"aten.pairwise_distance", "pairwise_distance(x1, x2, p, eps) = vector_norm(x1 - x2 + eps, p, -1)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.pairwise(a[0], a[1], b.float(a[2]), b.float(a[3]), b.bool(a[4]))
		}},
	{"aten.margin_ranking_loss", "margin_ranking_loss(x1, x2, t, m) = reduce(max(-t * (x1 - x2) + m, 0))",
		func(b *builder, a []ir.Arg) ir.Arg {
			v := b.o("add", b.o("mul", b.o("neg", a[2]), b.o("sub", a[0], a[1])), a[3])
			return b.reduceC(b.clampC(v, int64(0), nil), a[4], a[0])
		}},
	{"aten.hinge_embedding_loss", "hinge_embedding_loss(x, t, m) = reduce(where(t != 1, max(m - x, 0), 0) + where(t != -1, x, 0))",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, t := a[0], a[1]
			mc := b.clampC(b.o("add", b.o("neg", x), a[2]), int64(0), nil)
			l := b.o("add", b.o("where", b.o("ne", t, int64(1)), mc, b.zeroLike(mc)), b.o("where", b.o("ne", t, int64(-1)), x, b.zeroLike(x)))
			return b.reduceC(l, a[3], x)
		}},
	// full: ATen's formula (Loss.cpp), the Stirling term of the target itself masked where t <= 1, not
	// of a safe substitute: its gradient there is 0 * (log t + 0.5/t), NaN at t == 0 as in PyTorch.
	{"aten.poisson_nll_loss", "poisson_nll_loss(x, t) = reduce(exp(x) - t * x) (log_input), else x - t * log(x + eps); full adds where(t > 1, t*log(t) - t + 0.5*log(2*pi*t), 0)",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, t := a[0], a[1]
			var l ir.Arg
			if b.bool(a[2]) {
				l = b.o("sub", b.o("exp", x), b.o("mul", t, x))
			} else {
				l = b.o("sub", x, b.o("mul", t, b.o("log", b.o("add", x, a[4]))))
			}
			if b.bool(a[3]) {
				st := b.o("add", b.o("sub", b.o("mul", t, b.o("log", t)), t), b.o("mul", b.o("log", b.o("mul", t, 2*math.Pi)), 0.5))
				l = b.o("add", l, b.o("where", b.o("gt", t, int64(1)), st, b.zeroLike(st)))
			}
			return b.reduceC(l, a[5], x)
		}},
	{"aten.triplet_margin_loss", "triplet_margin_loss(a, p, n, m) = reduce(max(m + d(a, p) - d(a, n), 0)), d = pairwise_distance (swap: d(a, n) = min(d(a, n), d(p, n)))",
		func(b *builder, a []ir.Arg) ir.Arg {
			p, eps := b.float(a[4]), b.float(a[5])
			dp := b.pairwise(a[0], a[1], p, eps, false)
			dn := b.pairwise(a[0], a[2], p, eps, false)
			if b.bool(a[6]) {
				dn = b.o("minimum", dn, b.pairwise(a[1], a[2], p, eps, false))
			}
			return b.reduceC(b.clampC(b.o("add", b.o("sub", dp, dn), a[3]), int64(0), nil), a[7], a[0])
		}},
}
