package stages

import (
	"math"
	"sort"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decompositions of the op families added for real models (ir/ops_ext.go,
// ir/ops_ext_nn.go): activations, elementwise math, pointwise losses,
// scans, norms, einsum, padding, interpolation, convolutions beyond 2-D
// and adaptive max pooling. Every row emits core ops only; index
// arithmetic (padding, flips, rolls, interpolation) is built from arange
// and pointwise ops and applied by index_select, so it compiles.

func init() {
	decompositions = append(decompositions, extDecompositions...)
	sort.SliceStable(decompositions, func(i, j int) bool { return decompositions[i].op < decompositions[j].op })
}

// o emits the core op aten.<name>.
func (b *builder) o(name string, args ...ir.Arg) ir.Arg { return b.call("aten."+name, args...) }

// clampC clamps with where (NaN kept, PyTorch's gradient at the bounds).
func (b *builder) clampC(x ir.Arg, lo, hi ir.Arg) ir.Arg {
	if lo != nil {
		x = b.o("where", b.o("lt", x, lo), lo, x)
	}
	if hi != nil {
		x = b.o("where", b.o("gt", x, hi), hi, x)
	}
	return x
}

// clampOpen is clampC's values with the gradient passed only strictly
// between the bounds (a value equal to one takes the bound, a constant):
// hardtanh's and hardsigmoid's backward, where clamp's passes it at the
// bounds too. NaN compares false and stays.
func (b *builder) clampOpen(x ir.Arg, lo, hi ir.Arg) ir.Arg {
	x = b.o("where", b.o("le", x, lo), lo, x)
	return b.o("where", b.o("ge", x, hi), hi, x)
}

// softplusC is log1p(exp(beta*x))/beta, x itself above the threshold.
func (b *builder) softplusC(x ir.Arg, beta, th float64) ir.Arg {
	bx := x
	if beta != 1 {
		bx = b.o("mul", x, beta)
	}
	sp := b.o("log1p", b.o("exp", bx))
	if beta != 1 {
		sp = b.o("div", sp, beta)
	}
	return b.o("where", b.o("gt", bx, th), x, sp)
}

// bcast views a [n] tensor so that it lines up with dim d of a rank-r tensor.
func (b *builder) bcast(v ir.Arg, d, r int) ir.Arg {
	n := b.shape(v)
	shape := append([]int{}, n...)
	for i := d + 1; i < r; i++ {
		shape = append(shape, 1)
	}
	return b.reshape(v, shape)
}

// reduceC applies a loss reduction; batchmean divides the sum by size(0).
func (b *builder) reduceC(l ir.Arg, reduction any, x ir.Arg) ir.Arg {
	red, ok := reduction.(string)
	if n, isInt := reduction.(int64); isInt && n >= 0 && n <= 2 {
		red, ok = []string{"none", "mean", "sum"}[n], true
	}
	if !ok {
		b.failf("reduction must be a string, got %s", argText(reduction.(ir.Arg)))
		return nil
	}
	switch red {
	case "none":
		return l
	case "sum":
		return b.o("sum", l)
	case "mean":
		return b.o("div", b.o("sum", l), int64(max(numelOf(b.shape(l)), 1)))
	case "batchmean":
		xs := b.shape(x)
		if len(xs) == 0 {
			return b.o("sum", l)
		}
		return b.o("div", b.o("sum", l), int64(xs[0]))
	}
	b.failf("%s is not a valid value for reduction", red)
	return nil
}

// indexTensor is arange(start, start+n) as int64.
func (b *builder) indexRange(start, n int) ir.Arg {
	return b.o("arange", int64(start), int64(start+n), int64(1), tensor.Int64)
}

// padDim pads (or crops, for negative amounts) dim d by lo and hi with a
// mode: constant (value), reflect, replicate, circular. The source index
// of every output position is computed from arange, then index_select.
func (b *builder) padDim(x ir.Arg, d, lo, hi int, mode string, value ir.Arg) ir.Arg {
	if lo == 0 && hi == 0 {
		return x
	}
	xs := b.shape(x)
	n := xs[d]
	m := n + lo + hi
	if m < 0 || (n == 0 && m > 0 && mode != "constant") {
		b.failf("pad: padding (%d, %d) is invalid for a dimension of size %d", lo, hi, n)
		return nil
	}
	idx := b.indexRange(-lo, m)
	var src ir.Arg
	switch mode {
	case "constant":
		src = b.clampC(idx, int64(0), int64(max(n-1, 0)))
	case "reflect":
		if lo >= n || hi >= n {
			b.failf("pad: padding size should be less than the corresponding input dimension, but got: padding (%d, %d) at dimension %d of input %v", lo, hi, d, xs)
			return nil
		}
		src = b.o("sub", int64(n-1), b.o("abs", b.o("sub", int64(n-1), b.o("abs", idx))))
	case "replicate":
		src = b.clampC(idx, int64(0), int64(n-1))
	case "circular":
		if lo > n || hi > n {
			b.failf("pad: padding value causes wrapping around more than once")
			return nil
		}
		// wrap around x cropped by the negative amounts (ATen's _pad_circular)
		cl, c := max(-lo, 0), n-max(-lo, 0)-max(-hi, 0)
		if c <= 0 {
			b.failf("pad: circular padding (%d, %d) leaves nothing of a dimension of size %d to wrap", lo, hi, n)
			return nil
		}
		src = b.o("add", b.o("remainder", b.indexRange(-max(lo, 0), m), int64(c)), int64(cl))
	default:
		b.failf("pad: unsupported padding mode %q (constant, reflect, replicate, circular)", mode)
		return nil
	}
	if n == 0 { // constant padding of an empty dim: all value
		shape := append([]int{}, xs...)
		shape[d] = m
		v := value
		if v == nil {
			v = int64(0)
		}
		return b.o("full", sizesArg(shape), v, b.dtype(x))
	}
	g := b.o("index_select", x, int64(d), src)
	if mode != "constant" || (lo <= 0 && hi <= 0) {
		return g
	}
	inside := b.o("logical_and", b.o("ge", idx, int64(0)), b.o("lt", idx, int64(n)))
	v := value
	if v == nil {
		v = int64(0)
	}
	fill := b.o("full", ir.Tuple{}, v, b.dtype(x))
	return b.o("where", b.bcast(inside, d, len(xs)), g, fill)
}

var extDecompositions = []decomposition{
	// Activations.
	{"aten.hardswish", "hardswish(x) = x * clamp(x + 3, 0, 6) / 6",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.o("div", b.o("mul", a[0], b.clampC(b.o("add", a[0], int64(3)), int64(0), int64(6))), int64(6))
		}},
	{"aten.hardsigmoid", "hardsigmoid(x) = clamp(x + 3, 0, 6) / 6, the gradient 0 at the bounds (x = ±3, hardsigmoid_backward)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.o("div", b.clampOpen(b.o("add", a[0], int64(3)), int64(0), int64(6)), int64(6))
		}},
	{"aten.hardtanh", "hardtanh(x, lo, hi) = t = where(x <= lo, lo, x); where(t >= hi, hi, t): clamp's values, the gradient 0 at the bounds (hardtanh_backward; F.relu6 is hardtanh(x, 0, 6))",
		func(b *builder, a []ir.Arg) ir.Arg {
			lo, hi := a[1], a[2]
			if lo == nil {
				lo = -1.0
			}
			if hi == nil {
				hi = 1.0
			}
			return b.clampOpen(a[0], lo, hi)
		}},
	{"aten.mish", "mish(x) = x * tanh(softplus(x)), softplus(x) = x above 20, else log1p(exp(x))",
		func(b *builder, a []ir.Arg) ir.Arg { return b.o("mul", a[0], b.o("tanh", b.softplusC(a[0], 1, 20))) }},
	{"aten.elu", "elu(x, alpha, scale, input_scale) = where(x > 0, x * scale, expm1(x * input_scale) * alpha * scale)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.elu(a[0], b.float(a[1]), b.float(a[2]), b.float(a[3]))
		}},
	{"aten.selu", "selu(x) = elu(x, 1.6732632423543772, 1.0507009873554805)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.elu(a[0], 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1)
		}},
	{"aten.celu", "celu(x, alpha) = where(x > 0, x, expm1(x / alpha) * alpha)",
		func(b *builder, a []ir.Arg) ir.Arg {
			al := b.float(a[1])
			if al == 0 {
				b.failf("ZeroDivisionError: celu alpha must not be 0")
				return nil
			}
			return b.elu(a[0], al, 1, 1/al)
		}},
	{"aten.softplus", "softplus(x, beta, threshold) = where(x * beta > threshold, x, log1p(exp(x * beta)) / beta)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.softplusC(a[0], b.float(a[1]), b.float(a[2])) }},
	{"aten.leaky_relu", "leaky_relu(x, s) = where(x > 0, x, x * s)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.o("where", b.o("gt", a[0], int64(0)), a[0], b.o("mul", a[0], a[1]))
		}},
	{"aten.log_sigmoid", "log_sigmoid(x) = minimum(x, 0) - log1p(exp(-abs(x)))",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.o("sub", b.o("minimum", a[0], b.o("full", ir.Tuple{}, int64(0), b.dtype(a[0]))), b.o("log1p", b.o("exp", b.o("neg", b.o("abs", a[0])))))
		}},
	{"aten.softsign", "softsign(x) = x / (1 + abs(x))",
		func(b *builder, a []ir.Arg) ir.Arg { return b.o("div", a[0], b.o("add", b.o("abs", a[0]), int64(1))) }},
	{"aten.tanhshrink", "tanhshrink(x) = x - tanh(x)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.o("sub", a[0], b.o("tanh", a[0])) }},
	{"aten.hardshrink", "hardshrink(x, l) = where(abs(x) <= l, 0, x)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.o("where", b.o("le", b.o("abs", a[0]), a[1]), b.o("full", ir.Tuple{}, int64(0), b.dtype(a[0])), a[0])
		}},
	{"aten.softshrink", "softshrink(x, l) = where(x > l, x - l, where(x < -l, x + l, 0))",
		func(b *builder, a []ir.Arg) ir.Arg {
			l := b.float(a[1])
			return b.o("where", b.o("gt", a[0], l), b.o("sub", a[0], l), b.o("where", b.o("lt", a[0], -l), b.o("add", a[0], l), b.o("full", ir.Tuple{}, int64(0), b.dtype(a[0]))))
		}},
	{"aten.prelu", "prelu(x, w) = where(x > 0, x, w * x), w [C] viewed along dim 1",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, w := a[0], a[1]
			xs := b.shape(x)
			if n := numelOf(b.shape(w)); n > 1 && len(xs) >= 2 {
				w = b.bcast(b.reshape(w, []int{n}), 1, len(xs))
			} else {
				w = b.reshape(w, []int{})
			}
			return b.o("where", b.o("gt", x, int64(0)), x, b.o("mul", w, x))
		}},
	{"aten.glu", "glu(x, d) = x[:h] * sigmoid(x[h:]) along d, h half the size",
		func(b *builder, a []ir.Arg) ir.Arg {
			xs := b.shape(a[0])
			if len(xs) == 0 {
				b.failf("glu does not support scalars because halving size must be even")
				return nil
			}
			d := b.dim(a[1], len(xs))
			if xs[d]%2 != 0 {
				b.failf("Halving dimension must be even, but dimension %d is size %d", d, xs[d])
				return nil
			}
			h := xs[d] / 2
			x, round := b.opmath(a[0]) // ATen's glu kernel: a narrow float in float, rounded once
			return round(b.o("mul", b.o("slice", x, int64(d), int64(0), int64(h)), b.o("sigmoid", b.o("slice", x, int64(d), int64(h), int64(2*h)))))
		}},

	// Elementwise math.
	{"aten.erfinv", "erfinv(y) = Giles' polynomial, then two Newton steps on erf(x) = y; ±inf at ±1, NaN beyond",
		decompErfinv},
	{"aten.lerp", "lerp(s, e, w) = where(|w| < 0.5, s + w * (e - s), e - (e - s) * (1 - w))",
		func(b *builder, a []ir.Arg) ir.Arg {
			s, e, w := a[0], a[1], a[2]
			d := b.o("sub", e, s)
			lo := func() ir.Arg { return b.o("add", s, b.o("mul", w, d)) }
			hi := func() ir.Arg {
				if dIsNum(w) {
					return b.o("sub", e, b.o("mul", d, 1-b.float(w)))
				}
				return b.o("sub", e, b.o("mul", d, b.o("sub", int64(1), w)))
			}
			if dIsNum(w) {
				if math.Abs(b.float(w)) < 0.5 {
					return lo()
				}
				return hi()
			}
			return b.o("where", b.o("lt", b.o("abs", w), 0.5), lo(), hi())
		}},
	{"aten.addcmul", "addcmul(s, t1, t2, v) = s + v * t1 * t2",
		func(b *builder, a []ir.Arg) ir.Arg {
			t1 := a[1]
			if b.float(a[3]) != 1 {
				t1 = b.o("mul", t1, a[3])
			}
			return b.o("add", a[0], b.o("mul", t1, a[2]))
		}},
	{"aten.addcdiv", "addcdiv(s, t1, t2, v) = s + v * t1 / t2",
		func(b *builder, a []ir.Arg) ir.Arg {
			if !b.dtype(a[1]).IsFloat() && !b.dtype(a[2]).IsFloat() {
				b.failf("Integer division with addcdiv is no longer supported")
				return nil
			}
			t1 := a[1]
			if b.float(a[3]) != 1 {
				t1 = b.o("mul", t1, a[3])
			}
			return b.o("add", a[0], b.o("div", t1, a[2]))
		}},
	{"aten.hypot", "hypot(a, b) = sqrt(a * a + b * b)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.o("sqrt", b.o("add", b.o("mul", a[0], a[0]), b.o("mul", a[1], a[1])))
		}},
	{"aten.nan_to_num", "nan_to_num(x, nan, posinf, neginf) = where(isnan(x), nan, where(x == inf, posinf, where(x == -inf, neginf, x))); the dtype's finite max/lowest by default",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			dt := b.dtype(x)
			if !dt.IsFloat() {
				return b.o("clone", x)
			}
			num := func(v ir.Arg, def float64) ir.Arg {
				if v == nil {
					return b.o("full", ir.Tuple{}, def, dt)
				}
				return b.o("full", ir.Tuple{}, v, dt)
			}
			r := b.o("where", b.o("isnan", x), num(a[1], 0), x)
			r = b.o("where", b.o("eq", x, math.Inf(1)), num(a[2], tensor.FiniteMax(dt)), r)
			return b.o("where", b.o("eq", x, math.Inf(-1)), num(a[3], -tensor.FiniteMax(dt)), r)
		}},
	{"aten.round_decimals", "round(x, decimals=d) = round(x * 10^d) / 10^d; for d < 0, round(x / 10^-d) * 10^-d",
		func(b *builder, a []ir.Arg) ir.Arg {
			d := b.int(a[1])
			if d == 0 {
				return b.o("round", a[0])
			}
			if !b.dtype(a[0]).IsFloat() {
				b.failf("round with decimals is not implemented for integer tensors")
				return nil
			}
			p := tensor.Round(b.dtype(a[0]), math.Pow(10, math.Abs(float64(d))))
			if d > 0 {
				return b.o("div", b.o("round", b.o("mul", a[0], p)), p)
			}
			return b.o("mul", b.o("round", b.o("div", a[0], p)), p)
		}},

	// Losses.
	{"aten.mse_loss", "mse_loss(x, t) = reduce((x - t)^2)",
		func(b *builder, a []ir.Arg) ir.Arg {
			d := b.o("sub", a[0], a[1])
			return b.reduceC(b.o("mul", d, d), a[2], a[0])
		}},
	{"aten.l1_loss", "l1_loss(x, t) = reduce(|x - t|)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.reduceC(b.o("abs", b.o("sub", a[0], a[1])), a[2], a[0]) }},
	{"aten.smooth_l1_loss", "smooth_l1_loss(x, t, beta) = reduce(where(d < beta, 0.5 * d^2 / beta, d - 0.5 * beta)), d = |x - t|",
		func(b *builder, a []ir.Arg) ir.Arg {
			beta := b.float(a[3])
			if beta < 0 {
				b.failf("smooth_l1_loss does not support negative values for beta.")
				return nil
			}
			d := b.o("abs", b.o("sub", a[0], a[1]))
			if beta == 0 {
				return b.reduceC(d, a[2], a[0])
			}
			l := b.o("where", b.o("lt", d, beta), b.o("div", b.o("mul", b.o("mul", d, d), 0.5), beta), b.o("sub", d, 0.5*beta))
			return b.reduceC(l, a[2], a[0])
		}},
	{"aten.huber_loss", "huber_loss(x, t, delta) = reduce(where(d < delta, 0.5 * d^2, delta * (d - 0.5 * delta))), d = |x - t|",
		func(b *builder, a []ir.Arg) ir.Arg {
			delta := b.float(a[3])
			if delta <= 0 {
				b.failf("huber_loss does not support non-positive values for delta.")
				return nil
			}
			d := b.o("abs", b.o("sub", a[0], a[1]))
			l := b.o("where", b.o("lt", d, delta), b.o("mul", b.o("mul", d, d), 0.5), b.o("mul", b.o("sub", d, 0.5*delta), delta))
			return b.reduceC(l, a[2], a[0])
		}},
	{"aten.binary_cross_entropy", "binary_cross_entropy(x, t, w) = reduce(w * ((t - 1) * max(log(1 - x), -100) - t * max(log(x), -100)))",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, t := a[0], a[1]
			lx := b.safeLog(x)
			l1x := b.safeLog(b.o("sub", int64(1), x))
			l := b.o("sub", b.o("mul", b.o("sub", t, int64(1)), l1x), b.o("mul", t, lx))
			if a[2] != nil {
				l = b.o("mul", l, a[2])
			}
			return b.reduceC(l, a[3], x)
		}},
	{"aten.binary_cross_entropy_with_logits", "bce_with_logits(x, t, w, pw) = reduce(w * ((1 - t) * x + lw * (log(exp(-m) + exp(-x - m)) + m))), m = max(-x, 0), lw = (pw - 1) * t + 1",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, t := a[0], a[1]
			nx := b.o("neg", x)
			m := b.clampC(nx, int64(0), nil)
			lse := b.o("log", b.o("add", b.o("exp", b.o("neg", m)), b.o("exp", b.o("sub", nx, m))))
			first := b.o("mul", b.o("sub", int64(1), t), x)
			var l ir.Arg
			if a[4] != nil {
				lw := b.o("add", b.o("mul", b.o("sub", a[4], int64(1)), t), int64(1))
				l = b.o("add", first, b.o("mul", lw, b.o("add", lse, m)))
			} else {
				l = b.o("add", b.o("add", first, m), lse)
			}
			if a[2] != nil {
				l = b.o("mul", l, a[2])
			}
			return b.reduceC(l, a[3], x)
		}},
	{"aten.kl_div", "kl_div(x, t) = reduce(where(t == 0, 0, t * log(t)) - t * x); log_target: exp(t) * (t - x); batchmean divides the sum by size(0)",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, t := a[0], a[1]
			var l ir.Arg
			if b.bool(a[3]) {
				l = b.o("mul", b.o("exp", t), b.o("sub", t, x))
			} else {
				xlogy := b.o("where", b.o("eq", t, int64(0)), b.o("full", ir.Tuple{}, int64(0), b.dtype(t)), b.o("mul", t, b.o("log", t)))
				l = b.o("sub", xlogy, b.o("mul", t, x))
			}
			return b.reduceC(l, a[2], x)
		}},
	{"aten.soft_margin_loss", "soft_margin_loss(x, t) = reduce(log1p(exp(-t * x)))",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.reduceC(b.o("log1p", b.o("exp", b.o("neg", b.o("mul", a[0], a[1])))), a[2], a[0])
		}},

	// Scans, flips, rolls, sorting.
	{"aten.flip", "flip(x, dims) = index_select(x, d, arange(n - 1, -1, -1)) for each d",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			xs := b.shape(x)
			seen := map[int]bool{}
			for _, d := range b.ints(a[1]) {
				dd, err := tensor.NormDim(d, len(xs))
				if err != nil || seen[dd] {
					b.failf("flip: bad or repeated dim %d", d)
					return nil
				}
				seen[dd] = true
				if len(xs) == 0 || xs[dd] <= 1 {
					continue
				}
				x = b.o("index_select", x, int64(dd), b.o("arange", int64(xs[dd]-1), int64(-1), int64(-1), tensor.Int64))
			}
			if x == a[0] {
				return b.o("clone", x)
			}
			return x
		}},
	{"aten.roll", "roll(x, s, d) = index_select(x, d, remainder(arange(n) - s, n)); no dims: roll the flattened tensor",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			xs := b.shape(x)
			shifts := b.ints(a[1])
			var dims []int
			if a[2] != nil {
				dims = b.ints(a[2])
			}
			if len(dims) == 0 {
				if len(shifts) != 1 {
					b.failf("shifts and dimensions must align. shifts: %d, dims:0", len(shifts))
					return nil
				}
				flat := b.reshape(x, []int{numelOf(xs)})
				r := b.rollDim(flat, 0, shifts[0])
				return b.reshape(r, xs)
			}
			if len(shifts) != len(dims) {
				b.failf("shifts and dimensions must align. shifts: %d, dims:%d", len(shifts), len(dims))
				return nil
			}
			for i, d := range dims {
				x = b.rollDim(x, b.dim(int64(d), len(xs)), shifts[i])
			}
			if x == a[0] {
				return b.o("clone", x)
			}
			return x
		}},
	{"aten.argsort", "argsort(x, d, descending, stable) = sort(x, d, descending, stable)[1]",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.o("getitem", b.o("sort", a[0], a[1], a[2], a[3]), int64(1))
		}},

	// Reductions.
	{"aten.logsumexp", "logsumexp(x, d) = log(sum(exp(x - m), d)) + m, m = amax(x, d) (0 where infinite)",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			if !b.dtype(x).IsFloat() {
				x = b.o("to_dtype", x, tensor.Float32)
			}
			m := b.o("amax", x, a[1], true)
			m = b.o("where", b.o("isinf", m), b.o("full", ir.Tuple{}, int64(0), b.dtype(x)), m)
			s := b.o("log", b.o("sum", b.o("exp", b.o("sub", x, m)), a[1], a[2]))
			if !b.bool(a[2]) {
				m = b.squeezeDims(m, a[1], len(b.shape(x)))
			}
			return b.o("add", s, m)
		}},
	{"aten.linalg_vector_norm", "vector_norm(x, p, d) = sqrt(sum(x * x)) for p = 2; sum(|x|) for 1; amax/amin(|x|) for ±inf; sum(x != 0) for 0; else sum(|x|^p)^(1/p); the root's gradient 0 where the sum is 0 (norm_backward); float16/bfloat16 in the narrow type with 1/p rounded to it, except bfloat16 p = 2 over trailing dims (float, rounded once)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.vectorNorm(a[0], b.float(a[1]), a[2], a[3], a[4]) }},
	{"aten.norm", "norm(x, p, d) = linalg_vector_norm(x, p, d) ('fro' is p = 2)",
		func(b *builder, a []ir.Arg) ir.Arg {
			p, err := ir.NormOrd(a[1])
			if err != nil {
				b.failf("%v", err)
				return nil
			}
			return b.vectorNorm(a[0], p, a[2], a[3], a[4])
		}},
	{"aten.var_mean", "var_mean(x, d) = (var(x, d), mean(x, d))",
		func(b *builder, a []ir.Arg) ir.Arg {
			n := b.reducedCount(a[0], a[1])
			return ir.Tuple{b.variance(a), b.o("div", b.o("sum", a[0], a[1], a[3]), int64(n))}
		}},
	{"aten.std_mean", "std_mean(x, d) = (sqrt(var(x, d)), mean(x, d)); the sqrt's gradient is 0 where var is 0 (std_backward)",
		func(b *builder, a []ir.Arg) ir.Arg {
			n := b.reducedCount(a[0], a[1])
			return ir.Tuple{b.stdOf(b.variance(a)), b.o("div", b.o("sum", a[0], a[1], a[3]), int64(n))}
		}},

	// einsum.
	{"aten.einsum", "einsum(eq, ops) = pairwise contractions left to right: permute + reshape + bmm (+ sum of labels used nowhere else), then permute to the output",
		decompEinsum},
}

// safeLog is max(log(v), -100) whose gradient stays finite where v is 0
// (log reads 1 there, and where routes no gradient to it).
func (b *builder) safeLog(v ir.Arg) ir.Arg {
	pos := b.o("gt", v, int64(0))
	one := b.o("full", ir.Tuple{}, int64(1), b.dtype(v))
	l := b.o("log", b.o("where", pos, v, one))
	return b.clampC(b.o("where", pos, l, b.o("full", ir.Tuple{}, int64(-100), b.dtype(v))), int64(-100), nil)
}

func (b *builder) elu(x ir.Arg, alpha, scale, inScale float64) ir.Arg {
	pos := x
	if scale != 1 {
		pos = b.o("mul", x, scale)
	}
	xi := x
	if inScale != 1 {
		xi = b.o("mul", x, inScale)
	}
	neg := b.o("mul", b.o("expm1", xi), alpha*scale)
	return b.o("where", b.o("gt", x, int64(0)), pos, neg)
}

// squeezeDims drops the reduced dims (None or () = all) of a keepdim result.
func (b *builder) squeezeDims(m ir.Arg, dims ir.Arg, rank int) ir.Arg {
	var ds []int
	if dims != nil {
		ds = b.ints(dims)
	}
	if len(ds) == 0 {
		return b.reshape(m, []int{})
	}
	keep := b.shape(m)
	drop := map[int]bool{}
	for _, d := range ds {
		dd, err := tensor.NormDim(d, rank)
		if err != nil {
			b.failf("%v", err)
			return nil
		}
		drop[dd] = true
	}
	var out []int
	for i, s := range keep {
		if !drop[i] {
			out = append(out, s)
		}
	}
	return b.reshape(m, out)
}

func (b *builder) vectorNorm(x ir.Arg, p float64, dims, keepdim, dtype ir.Arg) ir.Arg {
	if dtype != nil {
		x = b.o("to_dtype", x, dtype)
	}
	if !b.dtype(x).IsFloat() {
		b.failf("linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s", b.dtype(x))
		return nil
	}
	if dims == nil {
		dims = ir.Tuple{}
	}
	// PyTorch 1.13's CPU norm (ReduceOpsKernel.cpp) reduces a float16/bfloat16
	// input in that type (NormOps<scalar_t, acc_t = scalar_t>): |x|^p is rounded
	// to it (a float16 14^5 is +Inf, so pairwise_distance(p=5) is +Inf), the sum
	// too (here wider, rounded once), and the root is pow(sum, 1/p) with 1/p
	// itself rounded (1/3 is 0.333984375 in bfloat16). Only its p = 2 fast path
	// over the last dimension, taken for bfloat16 (not float16), accumulates in
	// float and rounds once.
	dt := b.dtype(x)
	xf, round := x, func(r ir.Arg) ir.Arg { return r }
	if p == 2 && dt == tensor.BFloat16 && b.reducesLastDims(x, dims) {
		xf, round = b.opmath(x)
	}
	switch {
	case p == 2:
		return round(b.rootOrZero(b.o("sum", b.o("mul", xf, xf), dims, keepdim), func(s ir.Arg) ir.Arg { return b.o("sqrt", s) }))
	case p == 1:
		return b.o("sum", b.o("abs", x), dims, keepdim)
	case math.IsInf(p, 1):
		return b.o("amax", b.o("abs", x), dims, keepdim)
	case math.IsInf(p, -1):
		return b.o("amin", b.o("abs", x), dims, keepdim)
	case p == 0:
		return b.o("to_dtype", b.o("sum", b.o("ne", x, int64(0)), dims, keepdim), dt)
	}
	ax := b.o("abs", x)
	var terms ir.Arg
	if p > 0 && p < 1 {
		// PyTorch's norm_backward gives 0 where x == 0; the derivative of |x|^p
		// there is inf * 0 = NaN, so those elements take |1|^p and are masked
		// to 0 after it (the mask's other branch gets no gradient).
		z := b.o("eq", x, int64(0))
		ax = b.o("where", z, b.o("full", ir.Tuple{}, int64(1), dt), ax)
		terms = b.o("where", z, b.o("full", ir.Tuple{}, int64(0), dt), b.o("pow", ax, p))
	} else {
		// |x|^p in float, rounded to the narrow type (the forward values are
		// NormOps' own): its derivative p * |x|^(p-1) is then taken in float,
		// where PyTorch's norm_backward, x * |x|^(p-2) * (grad / norm^(p-1)),
		// never forms it: a float16 5 * 14^4 overflowed, and grad 0 (the norm
		// +Inf) times it gave NaN where PyTorch's gradient is 0
		axf := ax
		xf, round := b.opmath(x)
		if xf != x {
			axf = b.o("abs", xf)
		}
		terms = round(b.o("pow", axf, p))
	}
	return b.rootOrZero(b.o("sum", terms, dims, keepdim), func(s ir.Arg) ir.Arg { return b.o("pow", s, tensor.Round(dt, 1/p)) })
}

// rootOrZero is root(s) (a norm's sqrt or 1/p-th power, std's sqrt of the
// variance) with PyTorch's gradient where s == 0: norm_backward and
// std_backward mask grad / result to 0 there (a zero row: F.normalize of
// padding, cdist(z, z)'s diagonal, std of a constant row), where the
// derivative of the root is grad / 0 and the chain rule then multiplies
// it by 0 (NaN). Those elements take root(1) and are then replaced by 0
// (the where's other branch gets no gradient, the root's input there
// none either); the value is root(s) everywhere else, NaN included.
// stdOf is std from the variance v: sqrt(v), rootOrZero's gradient.
func (b *builder) stdOf(v ir.Arg) ir.Arg {
	return b.rootOrZero(v, func(s ir.Arg) ir.Arg { return b.o("sqrt", s) })
}

func (b *builder) rootOrZero(s ir.Arg, root func(ir.Arg) ir.Arg) ir.Arg {
	dt := b.dtype(s)
	z := b.o("eq", s, int64(0))
	safe := b.o("where", z, b.o("full", ir.Tuple{}, int64(1), dt), s)
	return b.o("where", z, b.o("full", ir.Tuple{}, int64(0), dt), root(safe))
}

// reducesLastDims reports whether reducing x over dims is, once its size-1
// dims are dropped (as TensorIterator coalesces them), a reduction over a
// non-empty run of its trailing dims: ATen's "reduce the last dim" kernels.
func (b *builder) reducesLastDims(x ir.Arg, dims ir.Arg) bool {
	xs := b.shape(x)
	red := make([]bool, len(xs))
	ds := b.ints(dims)
	if len(ds) == 0 { // every dim
		for i := range red {
			red[i] = true
		}
	}
	for _, d := range ds {
		if d < 0 {
			d += len(xs)
		}
		if d < 0 || d >= len(xs) {
			return false
		}
		red[d] = true
	}
	some, kept := false, false
	for i := len(xs) - 1; i >= 0; i-- {
		switch {
		case xs[i] == 1:
		case red[i] && kept:
			return false
		case red[i]:
			some = true
		default:
			kept = true
		}
	}
	return some
}
func (b *builder) rollDim(x ir.Arg, d, shift int) ir.Arg {
	n := b.shape(x)[d]
	if n == 0 || shift%n == 0 {
		return x
	}
	idx := b.o("remainder", b.o("sub", b.indexRange(0, n), int64(shift)), int64(n))
	return b.o("index_select", x, int64(d), idx)
}

// decompErfinv: Giles (2010) single-precision approximation, then two
// Newton steps x -= (erf(x) - y) / (2/sqrt(pi) * exp(-x^2)).
func decompErfinv(b *builder, a []ir.Arg) ir.Arg {
	y := a[0]
	if !b.dtype(y).IsFloat() {
		y = b.o("to_dtype", y, tensor.Float32)
	}
	dt := b.dtype(y)
	poly := func(w ir.Arg, cs []float64) ir.Arg {
		p := b.o("full", ir.Tuple{}, cs[0], dt)
		for _, c := range cs[1:] {
			p = b.o("add", b.o("mul", p, w), c)
		}
		return p
	}
	// w = -log((1 - y) * (1 + y)), clamped so both branches stay finite.
	w := b.o("neg", b.o("log", b.o("mul", b.o("sub", int64(1), y), b.o("add", y, int64(1)))))
	w = b.clampC(w, int64(0), 1e4)
	central := poly(b.o("sub", w, 2.5), []float64{2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
		0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941})
	tail := poly(b.o("sub", b.o("sqrt", w), int64(3)), []float64{-0.000200214257, 0.000100950558, 0.00134934322,
		-0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682})
	x := b.o("mul", b.o("where", b.o("lt", w, int64(5)), central, tail), y)
	k := 2 / math.Sqrt(math.Pi)
	for range 2 {
		f := b.o("sub", b.o("erf", x), y)
		df := b.o("mul", b.o("exp", b.o("neg", b.o("mul", x, x))), k)
		x = b.o("sub", x, b.o("div", f, df))
	}
	ay := b.o("abs", y)
	inf := b.o("mul", b.o("sign", y), math.Inf(1))
	x = b.o("where", b.o("eq", ay, int64(1)), inf, x)
	return b.o("where", b.o("gt", ay, int64(1)), b.o("full", ir.Tuple{}, math.NaN(), dt), x)
}

// decompEinsum contracts the operands left to right with bmm.
func decompEinsum(b *builder, a []ir.Arg) ir.Arg {
	eq := strings.ReplaceAll(b.str(a[0]), " ", "")
	ops := b.tensors(a[1])
	if len(ops) == 1 {
		if inner, ok := ops[0].(ir.List); ok {
			ops = inner
		} else if inner, ok := ops[0].(ir.Tuple); ok {
			ops = inner
		}
	}
	if b.err != nil {
		return nil
	}
	lhs, rhs, explicit := strings.Cut(eq, "->")
	ins := strings.Split(lhs, ",")
	if len(ins) != len(ops) || strings.Contains(eq, ".") {
		b.failf("einsum: equation %q does not fit %d operands (ellipsis is not supported)", eq, len(ops))
		return nil
	}
	size := map[byte]int{}
	count := map[byte]int{}
	for i, s := range ins {
		sh := b.shape(ops[i])
		if len(s) != len(sh) {
			b.failf("einsum(): the number of subscripts in the equation (%d) does not match the number of dimensions (%d) for operand %d", len(s), len(sh), i)
			return nil
		}
		seen := map[byte]bool{}
		for k := 0; k < len(s); k++ {
			if seen[s[k]] {
				b.failf("einsum: a label repeated within one operand (a diagonal, %q) is not supported", s)
				return nil
			}
			seen[s[k]] = true
			if size[s[k]] <= 1 {
				size[s[k]] = sh[k]
			}
			count[s[k]]++
		}
	}
	if !explicit {
		var rs []byte
		for r, c := range count {
			if c == 1 {
				rs = append(rs, r)
			}
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
		rhs = string(rs)
	}
	cur, lc := ops[0], ins[0]
	for k := 1; k < len(ops); k++ {
		later := rhs + strings.Join(ins[k+1:], "")
		cur, lc = b.contract(cur, lc, ops[k], ins[k], later, size)
	}
	// Sum the labels not in the output, then permute into its order.
	var sumDims []int64
	var rest string
	for i := 0; i < len(lc); i++ {
		if !strings.ContainsRune(rhs, rune(lc[i])) {
			sumDims = append(sumDims, int64(i))
		} else {
			rest += string(lc[i])
		}
	}
	if len(sumDims) > 0 {
		t := make(ir.Tuple, len(sumDims))
		for i, d := range sumDims {
			t[i] = d
		}
		cur = b.o("sum", cur, t)
	}
	perm := make([]int, len(rhs))
	for i := 0; i < len(rhs); i++ {
		perm[i] = strings.IndexByte(rest, rhs[i])
		if perm[i] < 0 {
			b.failf("einsum(): output subscript %c does not appear in the equation for any input operand", rhs[i])
			return nil
		}
	}
	out := b.permute(cur, perm)
	if out == ops[0] {
		return b.o("clone", out)
	}
	// Broadcast size-1 labels to the output's sizes.
	want := make([]int, len(rhs))
	for i := range rhs {
		want[i] = size[rhs[i]]
	}
	if !sameInts(b.shape(out), want) {
		out = b.o("expand", out, sizesArg(want))
	}
	return out
}

// contract multiplies x (labels lx) and y (labels ly), keeping the labels
// in keep (the output's and later operands'), with one bmm.
func (b *builder) contract(x ir.Arg, lx string, y ir.Arg, ly string, keep string, size map[byte]int) (ir.Arg, string) {
	// Labels of one operand used nowhere else are summed first.
	pre := func(t ir.Arg, l, other string) (ir.Arg, string) {
		var dims ir.Tuple
		var rest string
		for i := 0; i < len(l); i++ {
			c := rune(l[i])
			if !strings.ContainsRune(other, c) && !strings.ContainsRune(keep, c) {
				dims = append(dims, int64(i))
			} else {
				rest += string(l[i])
			}
		}
		if len(dims) == 0 {
			return t, l
		}
		return b.o("sum", t, dims), rest
	}
	x, lx = pre(x, lx, ly)
	y, ly = pre(y, ly, lx)
	var batch, left, right, contr string
	for i := 0; i < len(lx); i++ {
		c := rune(lx[i])
		switch {
		case strings.ContainsRune(ly, c) && strings.ContainsRune(keep, c):
			batch += string(c)
		case strings.ContainsRune(ly, c):
			contr += string(c)
		default:
			left += string(c)
		}
	}
	for i := 0; i < len(ly); i++ {
		if !strings.ContainsRune(lx, rune(ly[i])) {
			right += string(ly[i])
		}
	}
	arrange := func(t ir.Arg, l string, order string) ir.Arg {
		perm := make([]int, len(order))
		sizes := make([]int, len(order))
		for i := 0; i < len(order); i++ {
			perm[i] = strings.IndexByte(l, order[i])
			sizes[i] = size[order[i]]
		}
		t = b.permute(t, perm)
		if !sameInts(b.shape(t), sizes) {
			t = b.o("expand", t, sizesArg(sizes))
		}
		return t
	}
	prod := func(ls string) int {
		n := 1
		for i := 0; i < len(ls); i++ {
			n *= size[ls[i]]
		}
		return n
	}
	xa := b.reshape(arrange(x, lx, batch+left+contr), []int{prod(batch), prod(left), prod(contr)})
	ya := b.reshape(arrange(y, ly, batch+contr+right), []int{prod(batch), prod(contr), prod(right)})
	if b.dtype(xa) != b.dtype(ya) {
		dt := tensor.Promote(b.dtype(xa), b.dtype(ya))
		xa, ya = b.o("to_dtype", xa, dt), b.o("to_dtype", ya, dt)
	}
	r := b.o("bmm", xa, ya)
	lr := batch + left + right
	sizes := make([]int, len(lr))
	for i := 0; i < len(lr); i++ {
		sizes[i] = size[lr[i]]
	}
	return b.reshape(r, sizes), lr
}
