package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decompositions of ir/ops_ext_nn2.go: 1-D and adaptive pooling as
// strided slices or index_select windows with maximum / sum (compiled),
// local response norm as a sum of channel slices, the RNN cells as linear
// layers and pointwise gates.

func init() {
	decompositions = append(decompositions, extNN2Decompositions...)
	sortDecompositions()
}

var extNN2Decompositions = []decomposition{
	// A floating max_pool3d is max_pool3d_with_indices, as ATen computes it (DilatedMaxPool3d.cpp): the
	// gradient goes to the window's first maximum (its last NaN), where a maximum chain's derivative
	// splits it between equal elements (ties: an all-zero window after a relu).
	{"aten.max_pool3d", "max_pool3d(x, k, s, p, d, c) = max_pool3d_with_indices(x, k, s, p, d, c)[0] for floats; integers: max_pool1d along W, then H, then D (max over a box is separable)",
		func(b *builder, a []ir.Arg) ir.Arg {
			k, s, p, d := b.pool3Args(a[1], a[2], a[3], a[4])
			if b.dtype(a[0]).IsFloat() || b.bool(a[5]) || b.bool(a[6]) { // decomp_pool.go
				r := b.o("max_pool3d_with_indices", a[0], sizesArg(k), sizesArg(s), sizesArg(p), sizesArg(d), a[5])
				if b.bool(a[6]) {
					return ir.Tuple{b.o("getitem", r, int64(0)), b.o("getitem", r, int64(1))}
				}
				return b.o("getitem", r, int64(0))
			}
			x := a[0]
			n := len(b.shape(x))
			for i := 2; i >= 0; i-- {
				x = b.poolDim(x, n-3+i, k[i], s[i], p[i], d[i], false, "max")
			}
			return x
		}},
	{"aten.avg_pool3d", "avg_pool3d(x, k, s, p) = window sums along W, H, D (strided slices of the zero-padded x, ceil_mode's extra windows included) / (divisor_override, or kd*kh*kw, or per point the product of the per-dim window lengths: up to size + padding, or in bounds); integers divide truncating",
		func(b *builder, a []ir.Arg) ir.Arg {
			k, s, p, _ := b.pool3Args(a[1], a[2], a[3], int64(1))
			return b.avgPool(a[0], 3, k, s, p, b.bool(a[4]), b.bool(a[5]), a[6]) // decomp_pool.go
		}},
	{"aten.adaptive_avg_pool3d", "adaptive_avg_pool3d(x, o) = adaptive_avg_pool1d along W, H, D (index_select windows, summed and divided)",
		func(b *builder, a []ir.Arg) ir.Arg {
			out := b.ints(a[1])
			if len(out) == 1 {
				out = []int{out[0], out[0], out[0]}
			}
			return b.adaptive(a[0], out)
		}},
	// A floating max_pool1d is max_pool1d_with_indices (decomp_pool.go), as ATen runs it when the input
	// takes a gradient: the gradient goes to the window's first maximum (its last NaN), where a maximum
	// chain's derivative splits it between equal elements (ties are common in bfloat16, or after a relu).
	{"aten.max_pool1d", "max_pool1d(x, k, s, p, d, c) = max_pool1d_with_indices(x, k, s, p, d, c)[0] for floats; integers: maximum over j < k of slice(pad(x, p, -inf), -1, j*d, .., s)",
		func(b *builder, a []ir.Arg) ir.Arg {
			if b.dtype(a[0]).IsFloat() {
				r := b.d.table["aten.max_pool1d_with_indices"].fn(b, a[:6])
				if t, ok := r.(ir.Tuple); ok && !b.bool(a[6]) {
					return t[0]
				}
				return r
			}
			if b.bool(a[6]) {
				b.failf("max_pool1d: return_indices=True is not supported by gcdbg")
				return nil
			}
			k, s, p, d := b.poolArgs(a[1], a[2], a[3], a[4])
			return b.pool1d(a[0], k, s, p, d, b.bool(a[5]), "max")
		}},
	{"aten.avg_pool1d", "avg_pool1d(x, k, s, p) = sum over j < k of slice(x, -1, j, .., s) / k; padding, ceil_mode or count_include_pad=False: avg_pool2d over a height-1 view; integers: avg_pool3d's sums and truncating division",
		func(b *builder, a []ir.Arg) ir.Arg {
			k, s, p, _ := b.poolArgs(a[1], a[2], a[3], int64(1))
			if !b.dtype(a[0]).IsFloat() { // integers: truncating division (decomp_pool.go)
				return b.avgPool(a[0], 1, []int{k}, []int{s}, []int{p}, b.bool(a[4]), b.bool(a[5]), nil)
			}
			// With padding too: the padded copy is a gather (index_select of
			// clamped positions, then where) and its backward a scatter_add
			// after four strided slice_scatters; AvgPool1d(4, 2, 1) at 16 x 64
			// x 16000 spent 20 ms forward and 176 ms backward there, where
			// avg_pool2d has window kernels both ways.
			if b.bool(a[4]) || !b.bool(a[5]) || p > 0 {
				x2 := b.o("unsqueeze", a[0], int64(-2))
				y := b.o("avg_pool2d", x2, sizesArg([]int{1, k}), sizesArg([]int{1, s}), sizesArg([]int{0, p}), a[4], a[5])
				return b.o("squeeze", y, ir.Tuple{int64(-2)})
			}
			xf, round := b.opmath(a[0]) // a narrow float sums in float, rounds once (ATen's avg_pool2d)
			return round(b.pool1d(xf, k, s, p, 1, false, "avg"))
		}},
	{"aten.adaptive_avg_pool1d", "adaptive_avg_pool1d(x, o) = sum over j < K of where(start + j < end, index_select(x, -1, min(start + j, end - 1)), 0) / (end - start)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.adaptive(a[0], b.ints(a[1])) }},
	// adaptive_max_pool1d/2d are their _with_indices forms (decomp_pool.go), as ATen computes them
	// (AdaptiveMaxPoolKernel.cpp): the gradient goes to the window's first maximum (its last NaN).
	{"aten.adaptive_max_pool1d", "adaptive_max_pool1d(x, o) = adaptive_max_pool1d_with_indices(x, o)[0] (both with return_indices)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.adaptiveMaxIndices(a, 1) }},
	{"aten.adaptive_max_pool2d", "adaptive_max_pool2d(x, o) = adaptive_max_pool2d_with_indices(x, o)[0] (both with return_indices)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.adaptiveMaxIndices(a, 2) }},
	{"aten.local_response_norm", "local_response_norm(x, n, alpha, beta, k) = x / (k + alpha / n * sum of n channel slices of pad(x^2, n/2, (n-1)/2))^beta",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			xs := b.shape(x)
			n := b.int(a[1])
			if len(xs) < 3 || n <= 0 {
				b.failf("local_response_norm: expected 3D or higher dimensionality input and a positive size (got %v, %d)", xs, n)
				return nil
			}
			if numelOf(xs) == 0 {
				return b.o("clone", x) // F.local_response_norm returns an empty input itself
			}
			sq := b.padDim(b.o("mul", x, x), 1, n/2, (n-1)/2, "constant", nil)
			var s ir.Arg
			for j := 0; j < n; j++ {
				sl := b.o("slice", sq, int64(1), int64(j), int64(j+xs[1]))
				if s == nil {
					s = sl
				} else {
					s = b.o("add", s, sl)
				}
			}
			mean := b.o("div", s, int64(n))
			if !b.dtype(x).IsFloat() { // F's avg_pool of the int64 squares divides truncating (sums >= 0)
				mean = b.o("floor_divide", s, int64(n))
			}
			div := b.o("pow", b.o("add", b.o("mul", mean, a[2]), a[4]), a[3])
			return b.o("div", x, div)
		}},
	{"aten.gru_cell", "gru_cell(x, h) = n + z * (h - n), r = sigmoid(xr + hr), z = sigmoid(xz + hz), n = tanh(xn + r * hn), x* and h* the thirds of linear(x, w_ih, b_ih) and linear(h, w_hh, b_hh)",
		func(b *builder, a []ir.Arg) ir.Arg {
			gi := decompLinear(b, []ir.Arg{a[0], a[2], a[4]})
			gh := decompLinear(b, []ir.Arg{a[1], a[3], a[5]})
			gs := b.shape(gi)
			d := len(gs) - 1
			hs := gs[d] / 3
			part := func(t ir.Arg, k int) ir.Arg { return b.o("slice", t, int64(d), int64(k*hs), int64((k+1)*hs)) }
			r := b.o("sigmoid", b.o("add", part(gi, 0), part(gh, 0)))
			z := b.o("sigmoid", b.o("add", part(gi, 1), part(gh, 1)))
			n := b.o("tanh", b.o("add", part(gi, 2), b.o("mul", r, part(gh, 2))))
			return b.o("add", n, b.o("mul", z, b.o("sub", a[1], n)))
		}},
	{"aten.lstm_cell", "lstm_cell(x, (h, c)) = (o * tanh(c'), c'), c' = f * c + i * g; i, f, o = sigmoid, g = tanh of the quarters of linear(x, w_ih, b_ih) + linear(h, w_hh, b_hh)",
		func(b *builder, a []ir.Arg) ir.Arg {
			hc := b.tensors(a[1])
			if len(hc) != 2 {
				b.failf("lstm_cell: expected hx = (h, c)")
				return nil
			}
			g := b.o("add", decompLinear(b, []ir.Arg{a[0], a[2], a[4]}), decompLinear(b, []ir.Arg{hc[0], a[3], a[5]}))
			gs := b.shape(g)
			d := len(gs) - 1
			hs := gs[d] / 4
			part := func(k int) ir.Arg { return b.o("slice", g, int64(d), int64(k*hs), int64((k+1)*hs)) }
			i, f, gg, o := b.o("sigmoid", part(0)), b.o("sigmoid", part(1)), b.o("tanh", part(2)), b.o("sigmoid", part(3))
			c := b.o("add", b.o("mul", f, hc[1]), b.o("mul", i, gg))
			return ir.Tuple{b.o("mul", o, b.o("tanh", c)), c}
		}},
}

func (b *builder) pool3Args(ka, sa, pa, da ir.Arg) (k, s, p, d []int) {
	k = b.spatial(ka, 3, nil) // decomp_pool.go
	return k, b.spatial(sa, 3, k), b.spatial(pa, 3, []int{0, 0, 0}), b.spatial(da, 3, []int{1, 1, 1})
}

func (b *builder) poolArgs(ka, sa, pa, da ir.Arg) (k, s, p, d int) {
	first := func(v ir.Arg) int {
		xs := b.ints(v)
		if len(xs) == 0 {
			return 0
		}
		return xs[0]
	}
	k = first(ka)
	s = k
	if sa != nil {
		if t := b.ints(sa); len(t) > 0 {
			s = t[0]
		}
	}
	return k, s, first(pa), first(da)
}

// pool1d slides a window over the last dim with strided slices.
func (b *builder) pool1d(x ir.Arg, k, s, p, d int, ceil bool, op string) ir.Arg {
	return b.poolDim(x, len(b.shape(x))-1, k, s, p, d, ceil, op)
}

// poolDim slides a window over dim last with strided slices.
func (b *builder) poolDim(x ir.Arg, last, k, s, p, d int, ceil bool, op string) ir.Arg {
	xs := b.shape(x)
	if len(xs) < 1 || k <= 0 || s <= 0 || d <= 0 || p < 0 || p > k/2 {
		b.failf("%s_pool1d: bad arguments kernel %d stride %d padding %d dilation %d for input %v", op, k, s, p, d, xs)
		return nil
	}
	L := xs[last]
	num := L + 2*p - d*(k-1) - 1
	lo := num/s + 1
	if ceil {
		lo = (num+s-1)/s + 1
		if (lo-1)*s >= L+p {
			lo--
		}
	}
	if lo <= 0 {
		b.failf("%s_pool1d: output size is too small", op)
		return nil
	}
	right := max(p, (lo-1)*s+(k-1)*d+1-L-p)
	var fill ir.Arg = int64(0)
	if op == "max" {
		fill = math.Inf(-1)
	}
	xp := b.padDim(x, last, p, right, "constant", fill)
	var r ir.Arg
	for j := 0; j < k; j++ {
		sl := b.o("slice", xp, int64(last), int64(j*d), int64(j*d+(lo-1)*s+1), int64(s))
		switch {
		case r == nil:
			r = sl
		case op == "max":
			r = b.o("maximum", r, sl)
		default:
			r = b.o("add", r, sl)
		}
	}
	if op == "avg" {
		return b.o("div", r, int64(k))
	}
	if k == 1 && op == "max" {
		return b.o("clone", r)
	}
	return r
}

// adaptive average-pools the trailing len(out) dims, last first (adaptive
// max pooling is its _with_indices form: adaptiveMaxIndices, decomp_pool.go).
func (b *builder) adaptive(x ir.Arg, out []int) ir.Arg {
	xs := b.shape(x)
	if len(xs) < len(out)+1 {
		b.failf("adaptive pooling: input %v has too few dims for output size %v", xs, out)
		return nil
	}
	for i := len(out) - 1; i >= 0; i-- {
		d := len(xs) - len(out) + i
		in, o := xs[d], out[i]
		if o < 0 {
			continue
		}
		if o <= 0 || in <= 0 {
			b.failf("adaptive pooling: output size %d and input size %d must be positive", o, in)
			return nil
		}
		K := 0
		for j := 0; j < o; j++ {
			K = max(K, ((j+1)*in+o-1)/o-j*in/o)
		}
		j := b.indexRange(0, o)
		start := b.o("floor_divide", b.o("mul", j, int64(in)), int64(o))
		end := b.o("floor_divide", b.o("add", b.o("mul", j, int64(in)), int64(in+o-1)), int64(o))
		var r ir.Arg
		for t := 0; t < K; t++ {
			pos := b.o("add", start, int64(t))
			idx := b.o("minimum", pos, b.o("sub", end, int64(1)))
			v := b.o("index_select", x, int64(d), idx)
			v = b.o("where", b.bcast(b.o("lt", pos, end), d, len(xs)), v, b.o("full", ir.Tuple{}, int64(0), b.dtype(x)))
			if r == nil {
				r = v
			} else {
				r = b.o("add", r, v)
			}
		}
		cnt := b.o("to_dtype", b.o("sub", end, start), b.dtype(x))
		r = b.o("div", r, b.bcast(cnt, d, len(xs)))
		x = r
	}
	return x
}

var _ = tensor.Float32
