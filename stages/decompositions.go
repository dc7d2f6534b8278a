package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// decomposition is one row of the table: a non-core op, its formula in core
// ops (docs/core-ops.md is generated from these), and the rewrite. fn gets
// the op's arguments bound to its schema (defaults filled, node references
// already mapped into the new graph) and returns the result: a node, a
// tuple of nodes for tuple-valued ops, or the input itself for identities.
type decomposition struct {
	op  string
	doc string
	fn  func(b *builder, a []ir.Arg) ir.Arg
}

// decompositions is the table, alphabetical. In-place ops (add_, copy_,
// setitem, ...) have no row: functionalization removes them first.
var decompositions = []decomposition{
	{"aten.addmm", "addmm(s, m1, m2, beta, alpha) = mm(m1, m2) * alpha + s * beta (the add stays a separate epilogue; beta=0 ignores s)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.addmm("aten.mm", a) }},
	{"aten.all", "all(x, d, keepdim) = eq(sum(eq(x, 0), d, keepdim), 0) (uint8 for a uint8 x, as PyTorch)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return anyAllDType(b, a[0], b.call("aten.eq", b.call("aten.sum", b.call("aten.eq", a[0], int64(0)), a[1], a[2]), int64(0)))
		}},
	{"aten.any", "any(x, d, keepdim) = ne(sum(ne(x, 0), d, keepdim), 0) (uint8 for a uint8 x, as PyTorch)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return anyAllDType(b, a[0], b.call("aten.ne", b.call("aten.sum", b.call("aten.ne", a[0], int64(0)), a[1], a[2]), int64(0)))
		}},
	{"aten.baddbmm", "baddbmm(s, b1, b2, beta, alpha) = bmm(b1, b2) * alpha + s * beta",
		func(b *builder, a []ir.Arg) ir.Arg { return b.addmm("aten.bmm", a) }},
	{"aten.batch_norm", "batch_norm(x, mean, var, w, b) (eval) = (x - mean) * rsqrt(var + eps) * w + b, each [C] viewed as [C, 1, ...]",
		decompBatchNorm},
	{"aten.chunk", "chunk(x, n, d) = split(x, ceil(size(d) / n), d)",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			d := b.dim(a[2], len(b.shape(x)))
			n, c := b.shape(x)[d], b.int(a[1])
			if c <= 0 {
				b.failf("chunk expects `chunks` to be greater than 0, got: %d", c)
				return nil
			}
			if n == 0 {
				return b.splitSizes(x, d, make([]int, c))
			}
			return b.splitSizes(x, d, splitEven(n, (n+c-1)/c))
		}},
	// clamp keeps PyTorch's gradient at the bounds (a value equal to a bound
	// passes its gradient, as derivatives.yaml's `where(self >= min, grad, 0)`)
	// and its NaN propagation (NaN compares false, so NaN stays): hence
	// where(x < lo, lo, x) rather than maximum, which splits ties in half.
	{"aten.clamp", "clamp(x, lo, hi) = t = where(x < lo, lo, x); where(t > hi, hi, t)",
		func(b *builder, a []ir.Arg) ir.Arg {
			if a[1] == nil && a[2] == nil {
				b.failf("clamp: at least one of 'min' or 'max' must not be None")
				return nil
			}
			r := ir.Arg(a[0])
			if a[1] != nil {
				r = b.call("aten.where", b.call("aten.lt", r, a[1]), a[1], r)
			}
			if a[2] != nil {
				r = b.call("aten.where", b.call("aten.gt", r, a[2]), a[2], r)
			}
			return r
		}},
	{"aten.clamp_max", "clamp_max(x, hi) = where(x > hi, hi, x)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.call("aten.where", b.call("aten.gt", a[0], a[1]), a[1], a[0])
		}},
	{"aten.clamp_min", "clamp_min(x, lo) = where(x < lo, lo, x)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.call("aten.where", b.call("aten.lt", a[0], a[1]), a[1], a[0])
		}},
	{"aten.contiguous", "contiguous(x) = x when its strides are already contiguous, else clone(x)",
		func(b *builder, a []ir.Arg) ir.Arg {
			if b.isContiguous(a[0]) {
				return a[0]
			}
			return b.call("aten.clone", a[0])
		}},
	{"aten.cross_entropy", "cross_entropy(x, t) = nll_loss(log_softmax(x, 1), t) with label smoothing (1-ls)*nll + ls/C * smooth, or -sum(log_softmax(x) * t * w, 1) for probability targets",
		decompCrossEntropy},
	{"aten.dim", "folded: the number of dims, a Python int", foldPython},
	{"aten.dropout", "dropout(x, p, training=False) = x (identity), also p = 0; in training the normalized stage replaced it by dropout_masked (PyTorch's recorded mask, or gcdbg's own draw)",
		func(b *builder, a []ir.Arg) ir.Arg {
			if b.bool(a[2]) && b.float(a[1]) != 0 {
				b.failf("dropout in training mode is random; gcdbg decomposes it only in eval (training=False)")
				return nil
			}
			return a[0]
		}},
	{"aten.dtype", "folded: the dtype, a Python constant", foldPython},
	{"aten.embedding", "embedding(idx, w) = view(index_select(w, 0, view(idx, [-1])), idx.shape + [D]); with padding_idx p the rows where idx == p are detach()ed, so the padding row's gradient stays zero; with max_norm m the rows r are detach(where(norm(r) > m, r * (m / (norm(r) + 1e-7)), r)) + (r - detach(r)): renormalized values, unscaled gradient",
		decompEmbedding},
	{"aten.expand_as", "expand_as(x, o) = expand(x, o.shape)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.call("aten.expand", a[0], sizesArg(b.shape(a[1]))) }},
	{"aten.flatten", "flatten(x, s, e) = reshape(x, shape with dims s..e multiplied together)",
		func(b *builder, a []ir.Arg) ir.Arg {
			xs := b.shape(a[0])
			if len(xs) == 0 {
				return b.reshape(a[0], []int{1})
			}
			s, e := b.dim(a[1], len(xs)), b.dim(a[2], len(xs))
			if s > e {
				b.failf("flatten() has invalid args: start_dim cannot come after end_dim")
				return nil
			}
			out := append(append(append([]int{}, xs[:s]...), numelOf(xs[s:e+1])), xs[e+1:]...)
			return b.reshape(a[0], out)
		}},
	{"aten.full_like", "full_like(x, v, dtype) = full(x.shape, v, dtype or x.dtype)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.fullLike(a[0], a[1], a[2]) }},
	{"aten.gelu", "gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2))); tanh form: x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))",
		decompGelu},
	{"aten.getitem", "x[idx] = select (ints), slice (slices), unsqueeze (None), then index (tensors, lists, masks) for the advanced part; getitem on tuples is folded",
		decompGetitem},
	{"aten.layer_norm", "layer_norm(x, ns, w, b) = (x * rstd + (-rstd * mean)) * w + b, rstd = rsqrt(var + eps), mean/var (biased) over the last len(ns) dims; float16/bfloat16: mean, var, rstd = 1/sqrt(var + eps) and -rstd * mean rounded to the narrow type, y in float rounded once (ATen 1.13)",
		decompLayerNorm},
	{"aten.linear", "linear(x, w, b) = view(add(mm(view(x, [-1, in]), permute(w, [1, 0])), b), [..., out])",
		decompLinear},
	{"aten.log_softmax", "log_softmax(x, d) = (x - amax(x, d)) - log(sum(exp(x - amax(x, d)), d)), float16/bfloat16 in float rounded once",
		func(b *builder, a []ir.Arg) ir.Arg { return b.softmax(a, true) }},
	{"aten.masked_fill", "masked_fill(x, m, v) = where(m, v, x), v cast to x's dtype",
		decompMaskedFill},
	{"aten.matmul", "matmul(x, y) = mm for 1-D/2-D operands (views add and drop the unit dims), mm over folded rows for N-D @ 2-D, else expand + reshape + bmm + view",
		decompMatmul},
	{"aten.max", "max(x) = amax(x); max(x, d) = (gather(x, d, argmax(x, d)), argmax(x, d)) (amax for a 0-d x); max(x, y) = maximum(x, y)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.maxMin(a, "max") }},
	{"aten.mean", "mean(x, d) = sum(x, d) / N, N the number of reduced elements",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.call("aten.div", b.call("aten.sum", a[0], a[1], a[2], a[3]), int64(b.reducedCount(a[0], a[1])))
		}},
	{"aten.min", "min(x) = amin(x); min(x, d) = (gather(x, d, argmin(x, d)), argmin(x, d)) (amin for a 0-d x); min(x, y) = minimum(x, y)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.maxMin(a, "min") }},
	{"aten.narrow", "narrow(x, d, start, n) = slice(x, d, start, start + n)",
		func(b *builder, a []ir.Arg) ir.Arg {
			xs := b.shape(a[0])
			d := b.dim(a[1], len(xs))
			s, n := b.int(a[2]), b.int(a[3])
			if s < 0 {
				s += xs[d]
			}
			if s < 0 || n < 0 || s+n > xs[d] {
				b.failf("narrow: start (%d) + length (%d) exceeds dimension size (%d)", b.int(a[2]), n, xs[d])
				return nil
			}
			return b.call("aten.slice", a[0], int64(d), int64(s), int64(s+n))
		}},
	{"aten.nll_loss", "nll_loss(lp, t, w) = -gather(lp, 1, t) * w[t], where(t != ignore_index, ., 0), then sum or sum / sum(w[t])",
		decompNllLoss},
	{"aten.numel", "folded: the element count, a Python int", foldPython},
	{"aten.numpy_T", "x.T = permute(x, reversed dims)",
		func(b *builder, a []ir.Arg) ir.Arg {
			n := len(b.shape(a[0]))
			perm := make([]int, n)
			for i := range perm {
				perm[i] = n - 1 - i
			}
			return b.permute(a[0], perm)
		}},
	{"aten.ones", "ones(size) = full(size, 1)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.full(a[0], int64(1), a[1]) }},
	{"aten.ones_like", "ones_like(x) = full(x.shape, 1, x.dtype)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.fullLike(a[0], int64(1), a[1]) }},
	{"aten.reshape", "reshape(x, s) = view(x, s) when x's strides allow it, else view(clone(x), s)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.reshape(a[0], b.inferSize(a[0], b.ints(a[1]))) }},
	{"aten.reshape_as", "reshape_as(x, o) = reshape(x, o.shape)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.reshape(a[0], b.shape(a[1])) }},
	{"aten.rsub", "rsub(x, y, alpha) = sub(y, x, alpha); for a number y: add(mul(x, -alpha), y)",
		func(b *builder, a []ir.Arg) ir.Arg {
			if b.meta(a[1]) != nil {
				return b.call("aten.sub", a[1], a[0], a[2])
			}
			x := ir.Arg(b.call("aten.neg", a[0]))
			if b.float(a[2]) != 1 {
				x = b.call("aten.mul", a[0], negNumber(a[2]))
			}
			return b.call("aten.add", x, a[1])
		}},
	{"aten.silu", "silu(x) = x * sigmoid(x); where nothing is differentiated, float32/float64 x / (1 + exp(-x)) (PyTorch's CPU kernel)", decompSilu},
	{"aten.size", "folded: the sizes (a tuple of Python ints) or one size", foldPython},
	{"aten.softmax", "softmax(x, d) = exp(x - amax(x, d)) / sum(exp(x - amax(x, d)), d), over the last dim exp(...) * (1 / sum(...)) (PyTorch's CPU kernels), float16/bfloat16 in float rounded once",
		func(b *builder, a []ir.Arg) ir.Arg { return b.softmax(a, false) }},
	{"aten.split", "split(x, s, d) = (slice(x, d, 0, s), slice(x, d, s, 2s), ...); getitem on the result is the slice node",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			d := b.dim(a[2], len(b.shape(x)))
			n := b.shape(x)[d]
			if s, ok := a[1].(int64); ok {
				if s <= 0 && n > 0 {
					b.failf("split expects split_size be positive, got %d", s)
					return nil
				}
				return b.splitSizes(x, d, splitEven(n, int(s)))
			}
			sizes := b.ints(a[1])
			total := 0
			for _, s := range sizes {
				total += s
			}
			if total != n {
				b.failf("split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension %d), but got split_sizes=%v", n, d, sizes)
				return nil
			}
			return b.splitSizes(x, d, sizes)
		}},
	{"aten.square", "square(x) = x * x",
		func(b *builder, a []ir.Arg) ir.Arg { return b.call("aten.mul", a[0], a[0]) }},
	{"aten.stack", "stack(ts, d) = cat([unsqueeze(t, d) for t in ts], d)",
		func(b *builder, a []ir.Arg) ir.Arg {
			ts := b.tensors(a[0])
			if len(ts) == 0 {
				b.failf("stack expects a non-empty TensorList")
				return nil
			}
			d := b.dim(a[1], len(b.shape(ts[0]))+1)
			parts := make(ir.List, len(ts))
			for i, t := range ts {
				parts[i] = b.call("aten.unsqueeze", t, int64(d))
			}
			return b.call("aten.cat", parts, int64(d))
		}},
	{"aten.std", "std(x, d, correction) = sqrt(var(x, d, correction)), the sqrt's gradient 0 where var is 0 (std_backward)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.stdOf(b.variance(a)) }},
	{"aten.t", "t(x) = permute(x, [1, 0]) for 2-D x, x itself below",
		func(b *builder, a []ir.Arg) ir.Arg {
			if n := len(b.shape(a[0])); n > 2 {
				b.failf("t() expects a tensor with <= 2 dimensions, but self is %dD", n)
				return nil
			} else if n < 2 {
				return a[0]
			}
			return b.permute(a[0], []int{1, 0})
		}},
	{"aten.transpose", "transpose(x, i, j) = permute(x, identity with i and j swapped)",
		func(b *builder, a []ir.Arg) ir.Arg {
			n := len(b.shape(a[0]))
			perm := make([]int, n)
			for i := range perm {
				perm[i] = i
			}
			i, j := b.dim(a[1], n), b.dim(a[2], n)
			if n > 0 {
				perm[i], perm[j] = perm[j], perm[i]
			}
			return b.permute(a[0], perm)
		}},
	{"aten.tril", "tril(x, k) = where(arange(W) - arange(H)[:, None] <= k, x, 0)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.triangle(a, "aten.le") }},
	{"aten.triu", "triu(x, k) = where(arange(W) - arange(H)[:, None] >= k, x, 0)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.triangle(a, "aten.ge") }},
	{"aten.type_as", "type_as(x, o) = to_dtype(x, o.dtype), or x when the dtypes agree",
		func(b *builder, a []ir.Arg) ir.Arg {
			if dt := b.dtype(a[1]); dt != b.dtype(a[0]) {
				return b.call("aten.to_dtype", a[0], dt)
			}
			return a[0]
		}},
	{"aten.var", "var(x, d, correction) = sum((x - mean(x, d))^2, d) / max(N - correction, 0)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.variance(a) }},
	{"aten.view_as", "view_as(x, o) = view(x, o.shape)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.call("aten.view", a[0], sizesArg(b.shape(a[1]))) }},
	{"aten.zeros", "zeros(size) = full(size, 0)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.full(a[0], int64(0), a[1]) }},
	{"aten.zeros_like", "zeros_like(x) = full(x.shape, 0, x.dtype)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.fullLike(a[0], int64(0), a[1]) }},
}

func decompositionTable() map[string]decomposition {
	m := make(map[string]decomposition, len(decompositions))
	for _, e := range decompositions {
		m[e.op] = e
	}
	return m
}

// foldPython marks the meta ops: the driver evaluates every call with a
// Python result before looking at the table, so these rows only document it.
func foldPython(b *builder, a []ir.Arg) ir.Arg {
	b.failf("internal error: %s should have been folded into a constant", b.src.Target)
	return nil
}

func decompLinear(b *builder, a []ir.Arg) ir.Arg {
	x, w, bias := a[0], a[1], a[2]
	xs, ws := b.shape(x), b.shape(w)
	if len(ws) != 2 || len(xs) == 0 || xs[len(xs)-1] != ws[1] {
		b.failf("linear: input %v and weight %v do not fit (weight must be [out, in])", xs, ws)
		return nil
	}
	lead := xs[:len(xs)-1]
	x2 := x
	if len(xs) != 2 {
		x2 = b.reshape(x, []int{numelOf(lead), ws[1]})
	}
	y := ir.Arg(b.call("aten.mm", x2, b.permute(w, []int{1, 0})))
	if bias != nil {
		y = b.call("aten.add", y, bias) // kept separate so it can fuse as a GEMM epilogue
	}
	if len(xs) != 2 {
		y = b.call("aten.view", y, sizesArg(append(append([]int{}, lead...), ws[0])))
	}
	return y
}

func decompMatmul(b *builder, a []ir.Arg) ir.Arg {
	x, y := a[0], a[1]
	xs, ys := b.shape(x), b.shape(y)
	nx, ny := len(xs), len(ys)
	switch {
	case nx == 0 || ny == 0:
		b.failf("both arguments to matmul need to be at least 1D, but they are %dD and %dD", nx, ny)
		return nil
	case nx <= 2 && ny <= 2:
		x2, y2 := x, y
		if nx == 1 {
			x2 = b.call("aten.view", x, sizesArg([]int{1, xs[0]}))
		}
		if ny == 1 {
			y2 = b.call("aten.view", y, sizesArg([]int{ys[0], 1}))
		}
		r := ir.Arg(b.call("aten.mm", x2, y2))
		if nx == 1 || ny == 1 {
			out := []int{}
			if nx == 2 {
				out = append(out, xs[0])
			}
			if ny == 2 {
				out = append(out, ys[1])
			}
			r = b.call("aten.view", r, sizesArg(out))
		}
		return r
	case ny <= 2: // N-D @ 2-D (or 1-D): fold the batch into the rows of one mm
		k, lead := xs[nx-1], xs[:nx-1]
		y2 := y
		if ny == 1 {
			y2 = b.call("aten.view", y, sizesArg([]int{ys[0], 1}))
		}
		r := b.call("aten.mm", b.reshape(x, []int{numelOf(lead), k}), y2)
		out := append([]int{}, lead...)
		if ny == 2 {
			out = append(out, ys[1])
		}
		return b.call("aten.view", r, sizesArg(out))
	}
	// Batched: broadcast the batch dims, fold them into one, bmm, unfold.
	if nx == 1 {
		x, xs = b.call("aten.unsqueeze", x, int64(0)), []int{1, xs[0]}
	}
	if ny == 1 {
		y, ys = b.call("aten.unsqueeze", y, int64(1)), []int{ys[0], 1}
	}
	bx, by := xs[:len(xs)-2], ys[:len(ys)-2]
	batch, err := tensor.BroadcastShapes(bx, by)
	if err != nil {
		b.failf("matmul: batch dims %v and %v do not broadcast: %v", bx, by, err)
		return nil
	}
	m, k, n := xs[len(xs)-2], xs[len(xs)-1], ys[len(ys)-1]
	x3 := b.reshape(b.expand(x, xs, append(append([]int{}, batch...), m, k)), []int{numelOf(batch), m, k})
	y3 := b.reshape(b.expand(y, ys, append(append([]int{}, batch...), ys[len(ys)-2], n)), []int{numelOf(batch), ys[len(ys)-2], n})
	r := b.call("aten.bmm", x3, y3)
	out := append([]int{}, batch...)
	if nx > 1 {
		out = append(out, m)
	}
	if ny > 1 {
		out = append(out, n)
	}
	return b.call("aten.view", r, sizesArg(out))
}

func (b *builder) addmm(mm string, a []ir.Arg) ir.Arg {
	r := ir.Arg(b.call(mm, a[1], a[2]))
	beta, alpha := a[3], a[4]
	if b.dtype(r).IsInt() { // Scalar.to<int64_t>(): an integer addmm truncates beta and alpha (0.6 is 0)
		beta, alpha = int64(b.float(beta)), int64(b.float(alpha))
	}
	if b.float(alpha) != 1 {
		r = b.call("aten.mul", r, alpha)
	}
	if b.float(beta) == 0 { // PyTorch ignores self (even NaN in it) when beta is 0
		return r
	}
	s := a[0]
	if b.float(beta) != 1 {
		s = b.call("aten.mul", s, beta)
	}
	return b.call("aten.add", r, s)
}

func (b *builder) softmax(a []ir.Arg, log bool) ir.Arg {
	x := a[0]
	if a[2] != nil {
		x = b.call("aten.to_dtype", x, a[2])
	}
	// ATen's softmax kernels compute a float16/bfloat16 row in float and round
	// the result once; every step rounded to the narrow type is up to 4 ulps off.
	x, round := b.opmath(x)
	d := sizesArg([]int{b.int(a[1])})
	// The shift by the row's max is detached: the result does not depend on
	// it (exactly), and PyTorch's own backward (softmax_backward_data,
	// _log_softmax_backward_data) never differentiates it. Differentiated,
	// it adds a gradient term that is zero up to rounding at each row's
	// argmax, computed by three extra passes over the input (an eq, a count
	// and a multiply-add): cross-entropy training's backward read the
	// 10 MB logits twice more for it.
	shifted := b.call("aten.sub", x, b.call("aten.detach", b.call("aten.amax", x, d, true)))
	e := b.call("aten.exp", shifted)
	z := b.call("aten.sum", e, d, true)
	if log {
		return round(b.call("aten.sub", shifted, b.call("aten.log", z)))
	}
	// Over the last dim PyTorch's CPU kernel (aten/src/ATen/native/cpu/
	// SoftMaxKernel.cpp, _vec_softmax_lastdim) scales the row by the sum's
	// reciprocal: `tmp_sum = 1 / tmp_sum;` then `x * Vec(tmp_sum)`: one
	// division per row instead of one per element (softmax_rows, one thread:
	// 2.33 -> 2.09 ms, docs/performance.md). z >= 1 (the max's own exp is 1)
	// or NaN, so 1/z neither overflows nor is 0. Over another dim its kernel
	// (_vec_softmax) divides: `Vec::loadu(output_data + ...) / sum_vec`
	// (PyTorch 1.13, 10000 two-element rows, where e / s and e * (1/s)
	// differ in 11%: its results are e * (1/s) on every row over the last
	// dim and e / s on every one over dim 0).
	if n := len(b.shape(x)); n > 0 && b.dim(a[1], n) == n-1 {
		return round(b.call("aten.mul", e, b.call("aten.reciprocal", z)))
	}
	return round(b.call("aten.div", e, z))
}

// decompSilu is silu(x) = x * sigmoid(x), differentiable everywhere (its
// derivative through sigmoid's is finite for every x). A graph that nothing
// differentiates (no input requires grad: inference) takes PyTorch's CPU
// kernel's formula instead (aten/src/ATen/native/cpu/Activation.cpp,
// silu_kernel: `x / (1 + std::exp(-x))`, vectorized `x_vec / (kOneVec +
// x_vec.neg().exp())`): one rounding fewer than x * sigmoid(x) and no
// multiply (RMSNorm+SiLU 4096x1024, one thread: 2.33 -> 2.08 ms,
// docs/performance.md). Not where a backward follows: differentiated, exp's
// derivative (grad * exp(-x)) is 0 * Inf = NaN for x below about -88, where
// PyTorch's silu_backward gives -0. NaN, +-Inf and -0 come out as
// PyTorch's either way: silu(-Inf) = -Inf / Inf = NaN, silu(+Inf) = +Inf,
// silu(-0) = -0, and a large negative x gives -0 (x / Inf). float16 and
// bfloat16 keep x * sigmoid(x).
func decompSilu(b *builder, a []ir.Arg) ir.Arg {
	if dt := b.dtype(a[0]); b.d.noGrad && (dt == tensor.Float32 || dt == tensor.Float64) {
		return b.call("aten.div", a[0], b.call("aten.add", b.call("aten.exp", b.call("aten.neg", a[0])), 1.0))
	}
	return b.call("aten.mul", a[0], b.call("aten.sigmoid", a[0]))
}

func decompLayerNorm(b *builder, a []ir.Arg) ir.Arg {
	y, _, _ := b.layerNorm(a[0], b.ints(a[1]), a[2], a[3], a[4])
	return y
}

// layerNorm is layer_norm with its statistics (native_layer_norm's mean and
// rstd, kept dims), computed as PyTorch 1.13's CPU kernel
// (LayerNormKernelImplInternal<T>) computes them:
//
//	scale = rstd, bias = -rstd * mean, y = (x * scale + bias) * w + b
//
// (not (x - mean) * rstd: for one element float32 leaves the rounding of
// x * rstd, which PyTorch's fused multiply-add keeps). For float16/bfloat16
// the kernel runs with T the narrow type: mean and var come out in it, rstd is
// 1 / sqrt(var + eps) with every step rounded to it, bias = -rstd * mean is
// rounded to it, and only y is computed in float and rounded once: a single
// bfloat16 element x gives y = x * rstd + bf16(-rstd * x), 3.0 off for
// x = -5.25, eps = 1e-5, which PyTorch returns. (PyTorch's mean and var are a
// Welford recurrence in the narrow type; here they are the float statistics
// rounded once, within an ulp or two of it.)
func (b *builder) layerNorm(x ir.Arg, ns []int, w, bias, eps ir.Arg) (y, mean, rstd ir.Arg) {
	dims, n, ok := b.normDims(x, ns)
	if !ok {
		return nil, nil, nil
	}
	dt := b.dtype(x)
	xf, round := b.opmath(x)
	mean, v := b.rowMoments(xf, dims, n)
	var scale, shift ir.Arg
	if narrow := dt == tensor.Float16 || dt == tensor.BFloat16; narrow {
		mean, v = round(mean), round(v)
		e := tensor.Round(dt, b.float(eps))
		rstd = b.o("reciprocal", b.o("sqrt", b.o("add", v, e)))
		scale = b.o("to_dtype", rstd, tensor.Float32)
		shift = b.o("to_dtype", b.o("mul", b.o("neg", rstd), mean), tensor.Float32)
	} else {
		rstd = b.o("rsqrt", b.o("add", v, eps))
		scale, shift = rstd, b.o("mul", b.o("neg", rstd), mean)
	}
	y = b.o("add", b.o("mul", xf, scale), shift)
	if w != nil {
		wf, _ := b.opmath(w)
		y = b.o("mul", y, wf)
	}
	if bias != nil {
		bf, _ := b.opmath(bias)
		y = b.o("add", y, bf)
	}
	return round(y), mean, rstd
}

// normRows normalizes x over its trailing len(ns) dims as (x - mean) * rsqrt(var + eps)
// in x's dtype, every step rounded to it (group_norm's rows).
func (b *builder) normRows(x ir.Arg, ns []int, eps ir.Arg) ir.Arg {
	dims, n, ok := b.normDims(x, ns)
	if !ok {
		return nil
	}
	mean, v := b.rowMoments(x, dims, n)
	return b.o("mul", b.o("sub", x, mean), b.o("rsqrt", b.o("add", v, eps)))
}

// normDims checks that ns is x's trailing shape and returns those dims and
// their element count.
func (b *builder) normDims(x ir.Arg, ns []int) ([]int, int64, bool) {
	xs := b.shape(x)
	if len(ns) > len(xs) || !sameInts(xs[len(xs)-len(ns):], ns) {
		b.failf("layer_norm: normalized_shape %v does not match the input's trailing dims %v", ns, xs)
		return nil, 0, false
	}
	dims := make([]int, len(ns))
	for i := range dims {
		dims[i] = len(xs) - len(ns) + i
	}
	return dims, int64(numelOf(ns)), true
}

// rowMoments is the mean and the biased variance of x over dims (n elements), kept.
func (b *builder) rowMoments(x ir.Arg, dims []int, n int64) (mean, v ir.Arg) {
	mean = b.call("aten.div", b.call("aten.sum", x, sizesArg(dims), true), n)
	xc := b.call("aten.sub", x, mean)
	v = b.call("aten.div", b.call("aten.sum", b.call("aten.mul", xc, xc), sizesArg(dims), true), n)
	return mean, v
}

func decompBatchNorm(b *builder, a []ir.Arg) ir.Arg {
	if b.bool(a[5]) {
		return decompBatchNormTraining(b, a) // decompose_train.go
	}
	x := a[0]
	xs := b.shape(x)
	if len(xs) < 2 || a[1] == nil || a[2] == nil {
		b.failf("batch_norm (eval) needs an input of >= 2 dims and running_mean, running_var")
		return nil
	}
	// [C] parameters broadcast against [N, C, ...] as [C, 1, ...].
	pshape := append([]int{xs[1]}, make([]int, len(xs)-2)...)
	for i := 1; i < len(pshape); i++ {
		pshape[i] = 1
	}
	p := func(t ir.Arg) ir.Arg {
		if len(pshape) == 1 {
			return t
		}
		return b.call("aten.view", t, sizesArg(pshape))
	}
	y := ir.Arg(b.call("aten.mul", b.call("aten.sub", x, p(a[1])), b.call("aten.rsqrt", b.call("aten.add", p(a[2]), a[7]))))
	if a[3] != nil {
		y = b.call("aten.mul", y, p(a[3]))
	}
	if a[4] != nil {
		y = b.call("aten.add", y, p(a[4]))
	}
	return y
}

func decompGelu(b *builder, a []ir.Arg) ir.Arg {
	x := a[0]
	half := b.call("aten.mul", x, 0.5)
	switch b.str(a[1]) {
	case "none":
		return b.call("aten.mul", half, b.call("aten.add", b.call("aten.erf", b.call("aten.mul", x, 1/math.Sqrt2)), int64(1)))
	case "tanh":
		cube := b.call("aten.mul", b.call("aten.mul", x, x), x)
		inner := b.call("aten.mul", b.call("aten.add", x, b.call("aten.mul", cube, 0.044715)), math.Sqrt(2/math.Pi))
		return b.call("aten.mul", half, b.call("aten.add", b.call("aten.tanh", inner), int64(1)))
	}
	b.failf("gelu: approximate must be 'none' or 'tanh', got %q", b.str(a[1]))
	return nil
}

func decompMaskedFill(b *builder, a []ir.Arg) ir.Arg {
	x, mask, v := a[0], a[1], a[2]
	return b.call("aten.where", mask, b.storedAs(v, b.dtype(x)), x)
}

// storedAs is what x[...] = v stores in dtype dt: a tensor v converted by
// to_dtype where its dtype differs, a Python number by castNumber.
func (b *builder) storedAs(v ir.Arg, dt tensor.DType) ir.Arg {
	if m := b.meta(v); m != nil {
		if m.DType != dt {
			return b.call("aten.to_dtype", v, dt)
		}
		return v
	}
	return castNumber(v, dt)
}

// castNumber converts a Python number to what x[...] = v stores in dtype dt.
func castNumber(v ir.Arg, dt tensor.DType) ir.Arg {
	f, isF := v.(float64)
	switch {
	case dt == tensor.Bool:
		switch x := v.(type) {
		case float64:
			return x != 0
		case int64:
			return x != 0
		}
	case !dt.IsFloat() && isF:
		return int64(math.Trunc(f))
	}
	return v
}

func (b *builder) maxMin(a []ir.Arg, op string) ir.Arg {
	if b.meta(a[1]) != nil { // max(x, y) is the binary maximum
		return b.call("aten."+op+"imum", a[0], a[1])
	}
	if a[1] == nil {
		return b.call("aten.a"+op, a[0])
	}
	d := b.int(a[1])
	ordered := a[0]
	if b.dtype(a[0]) == tensor.Bool { // PyTorch's max/min(dim) takes bool (argmax does not): false < true, as uint8
		ordered = b.call("aten.to_dtype", a[0], tensor.Uint8)
	}
	idx := b.call("aten.arg"+op, ordered, int64(d), a[2])
	if len(b.shape(a[0])) == 0 {
		return ir.Tuple{b.call("aten.a"+op, a[0], sizesArg([]int{d}), a[2]), idx}
	}
	// The values are x at the returned indices, so that the gradient goes
	// to that one element, as PyTorch's max/min(dim) backward does
	// (value_selecting_reduction_backward); amax's would split it among
	// ties, which float16/bfloat16 inputs have often.
	at := idx
	if a[2] == nil || !b.bool(a[2]) {
		at = b.call("aten.unsqueeze", idx, int64(d))
	}
	vals := b.call("aten.gather", a[0], int64(d), at)
	if a[2] == nil || !b.bool(a[2]) {
		vals = b.call("aten.squeeze", vals, int64(d))
	}
	return ir.Tuple{vals, idx}
}

// variance is var(x, dim, unbiased, keepdim, correction).
func (b *builder) variance(a []ir.Arg) ir.Arg {
	x, dims := a[0], a[1]
	corr := 1.0
	if a[2] != nil && !b.bool(a[2]) {
		corr = 0
	}
	if a[4] != nil {
		corr = b.float(a[4])
	}
	n := b.reducedCount(x, dims)
	mean := b.call("aten.div", b.call("aten.sum", x, dims, true), int64(n))
	xc := b.call("aten.sub", x, mean)
	ss := b.call("aten.sum", b.call("aten.mul", xc, xc), dims, a[3])
	return b.call("aten.div", ss, math.Max(float64(n)-corr, 0))
}

func (b *builder) triangle(a []ir.Arg, cmp string) ir.Arg {
	x := a[0]
	xs := b.shape(x)
	if len(xs) < 2 {
		b.failf("tril/triu: input tensor must have at least 2 dimensions")
		return nil
	}
	h, w := xs[len(xs)-2], xs[len(xs)-1]
	col := b.call("aten.arange", int64(w))
	row := b.call("aten.unsqueeze", b.call("aten.arange", int64(h)), int64(1))
	keep := b.call(cmp, b.call("aten.sub", col, row), a[1])
	return b.call("aten.where", keep, x, b.call("aten.full", ir.Tuple{}, int64(0), b.dtype(x)))
}

func (b *builder) full(size, v, dtype ir.Arg) ir.Arg {
	if dtype == nil {
		dtype = tensor.Float32 // torch's default dtype
	}
	return b.call("aten.full", sizesArg(b.ints(size)), v, dtype)
}

func (b *builder) fullLike(x, v, dtype ir.Arg) ir.Arg {
	if dtype == nil {
		dtype = b.dtype(x)
	}
	return b.call("aten.full", sizesArg(b.shape(x)), v, dtype)
}

func (b *builder) splitSizes(x ir.Arg, d int, sizes []int) ir.Arg {
	out := make(ir.Tuple, len(sizes))
	start := 0
	for i, s := range sizes {
		out[i] = b.call("aten.slice", x, int64(d), int64(start), int64(start+s))
		start += s
	}
	return out
}

// splitEven cuts n into pieces of s, the last one shorter.
func splitEven(n, s int) []int {
	if n == 0 || s <= 0 {
		return []int{0}
	}
	var out []int
	for start := 0; start < n; start += s {
		out = append(out, min(s, n-start))
	}
	return out
}

func negNumber(a ir.Arg) ir.Arg {
	switch v := a.(type) {
	case int64:
		return -v
	case float64:
		return -v
	}
	return a
}

// anyAllDType gives any/all of x their result dtype: bool, but uint8 for a
// uint8 x (PyTorch keeps uint8 there; tensor.Reduce and ir's inference do).
func anyAllDType(b *builder, x, res ir.Arg) ir.Arg {
	if b.dtype(x) == tensor.Uint8 {
		return b.call("aten.to_dtype", res, tensor.Uint8)
	}
	return res
}
