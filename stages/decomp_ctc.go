package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// ctc_loss as core ops: the alpha recursion over the blank-extended target
// l' (length L = 2S+1, blank at even s) unrolled over the T frames, so the
// joint stage differentiates it like any graph (the gradient is the beta
// recursion). Per frame, alpha_t(s) = lse(alpha(s), alpha(s-1), alpha(s-2)
// where l'(s) != blank and l'(s) != l'(s-2)) + lp[t, l'(s)], kept from
// frame input_length on (where), and -log p = -lse(alpha(2·tl), alpha(2·tl-1))
// read at the end. Unreachable states hold a large finite negative NEG
// instead of PyTorch's -inf: lse of states that are all unreachable stays
// NEG-sized instead of NaN (-inf - -inf), and exp(NEG - finite) is exactly
// 0, so reachable values and every gradient are those of the -inf
// recursion. A sequence with no alignment (input_length < target_length +
// its repeated labels, counted from the targets) gets PyTorch's inf loss,
// or 0 and no gradient with zero_infinity (without it, PyTorch's NaN
// gradient on its frames); the gradient w.r.t. log_probs is PyTorch's
// (below). The max subtracted inside lse is
// detached (its derivative cancels). "mean" divides each loss by its
// target length (at least 1) and averages over the batch, as PyTorch.
func init() {
	decompositions = append(decompositions, decomposition{"aten.ctc_loss",
		"ctc_loss(lp, y, Tn, Sn) = -lse(alpha_T(2Sn), alpha_T(2Sn-1)), alpha_t = lse(alpha, shift1(alpha), skip(shift2(alpha))) + gather(lp[t], l') unrolled over T (kept past Tn), NEG for unreachable states; inf and a NaN gradient on frames t < Tn (zero_infinity: 0, no gradient) where Tn < Sn + repeats; mean divides by max(Sn, 1)",
		decompCTCLoss})
	sortDecompositions()
}

func decompCTCLoss(b *builder, a []ir.Arg) ir.Arg {
	a = append([]ir.Arg{}, a...)
	for i := 2; i < 4; i++ { // lengths given as Python lists: int64 tensors
		if v, ok := ir.CTCLengths(a[i]); ok && len(v) > 0 {
			parts := make(ir.List, len(v))
			for j, n := range v {
				parts[j] = b.o("full", sizesArg([]int{1}), n, tensor.Int64)
			}
			a[i] = b.o("cat", parts, int64(0))
		}
	}
	var m [4]*ir.TensorMeta
	for i := range m {
		if m[i] = b.meta(a[i]); m[i] == nil {
			b.failf("ctc_loss: argument %d must be a tensor (lengths: int tensors or lists of ints), got %s", i, argText(a[i]))
			return nil
		}
	}
	T, N, C, S, err := ir.CTCShapes(m[0], m[1], m[2], m[3])
	if err != nil {
		b.failf("%v", err)
		return nil
	}
	if T == 0 || N == 0 {
		b.failf("ctc_loss: empty log_probs %v", []int{T, N, C})
		return nil
	}
	dt := m[0].DType
	if dt != tensor.Float32 && dt != tensor.Float64 {
		b.failf("ctc_loss: gcdbg computes float32 and float64 log_probs, got %s", dt)
		return nil
	}
	blank := int64(b.int(a[4]))
	if blank < 0 || blank >= int64(C) {
		b.failf("ctc_loss: blank must be in label range, got %d for %d classes", blank, C)
		return nil
	}
	zeroInf := b.bool(a[6])
	const NEG = -1e30
	L := 2*S + 1
	lp := a[0]
	tgt, inLen, tLen := a[1], a[2], a[3]
	if m[1].DType != tensor.Int64 {
		tgt = b.o("to_dtype", tgt, tensor.Int64)
	}
	if m[2].DType != tensor.Int64 {
		inLen = b.o("to_dtype", inLen, tensor.Int64)
	}
	if m[3].DType != tensor.Int64 {
		tLen = b.o("to_dtype", tLen, tensor.Int64)
	}
	// l'(s): blank at even s, targets[(s-1)/2] at odd s; the padding past
	// 2·tl (never read by the result) set to blank so gather stays in range.
	s := b.indexRange(0, L)                                   // [L]
	odd := b.o("eq", b.o("remainder", s, int64(2)), int64(1)) // [L]
	ti := b.clampC(b.o("floor_divide", b.o("sub", s, int64(1)), int64(2)), int64(0), int64(max(S-1, 0)))
	var ext ir.Arg
	tl1 := b.reshape(tLen, []int{N, 1})
	valid := b.o("lt", b.reshape(s, []int{1, L}), b.o("add", b.o("mul", tl1, int64(2)), int64(1))) // [N, L]
	if S > 0 {
		lab := b.o("index_select", tgt, int64(1), ti) // [N, L]
		ext = b.o("where", b.o("logical_and", b.reshape(odd, []int{1, L}), valid), lab, blank)
	} else {
		ext = b.o("full", sizesArg([]int{N, L}), blank, tensor.Int64)
	}
	// skip(s): s odd, s >= 2, l'(s) != l'(s-2)
	var skip ir.Arg
	if L > 2 {
		prev2 := b.o("slice", ext, int64(1), int64(0), int64(L-2), int64(1))
		cur := b.o("slice", ext, int64(1), int64(2), int64(L), int64(1))
		sk := b.o("logical_and", b.o("ne", cur, prev2), b.reshape(b.o("slice", odd, int64(0), int64(2), int64(L), int64(1)), []int{1, L - 2}))
		skip = b.o("cat", ir.List{b.o("full", sizesArg([]int{N, 2}), false, tensor.Bool), sk}, int64(1))
	}
	// emissions of every frame at once: em[t, n, s] = lp[t, n, l'(n, s)]
	em := b.o("gather", lp, int64(2), b.o("expand", b.reshape(ext, []int{1, N, L}), sizesArg([]int{T, N, L})))
	negCols := map[int]ir.Arg{}
	negCol := func(k int) ir.Arg {
		if negCols[k] == nil {
			negCols[k] = b.o("full", sizesArg([]int{N, k}), NEG, dt)
		}
		return negCols[k]
	}
	shift := func(x ir.Arg, k int) ir.Arg {
		if L <= k {
			return negCol(L)
		}
		return b.o("cat", ir.List{negCol(k), b.o("slice", x, int64(1), int64(0), int64(L-k), int64(1))}, int64(1))
	}
	lse := func(xs ...ir.Arg) ir.Arg {
		mx := xs[0]
		for _, x := range xs[1:] {
			mx = b.o("maximum", mx, x)
		}
		mx = b.o("detach", mx)
		var sum ir.Arg
		for _, x := range xs {
			e := b.o("exp", b.o("sub", x, mx))
			if sum == nil {
				sum = e
			} else {
				sum = b.o("add", sum, e)
			}
		}
		return b.o("add", mx, b.o("log", sum))
	}
	// alpha_0: states 0 and 1 only
	first := b.o("lt", s, int64(2))
	alpha := b.o("where", b.reshape(first, []int{1, L}), b.o("select", em, int64(0), int64(0)), NEG)
	in1 := b.reshape(inLen, []int{N, 1})
	for t := 1; t < T; t++ {
		a1 := shift(alpha, 1)
		terms := []ir.Arg{alpha, a1}
		if skip != nil {
			terms = append(terms, b.o("where", skip, shift(alpha, 2), NEG))
		}
		next := b.o("add", lse(terms...), b.o("select", em, int64(0), int64(t)))
		alpha = b.o("where", b.o("lt", int64(t), in1), next, alpha)
	}
	// -log p = -lse(alpha(2·tl), alpha(2·tl - 1)); tl = 0 reads state 0 only
	end := b.o("mul", tl1, int64(2))
	last := b.o("gather", alpha, int64(1), end)
	prevEnd := b.o("gather", alpha, int64(1), b.clampC(b.o("sub", end, int64(1)), int64(0), nil))
	prevEnd = b.o("where", b.o("gt", tl1, int64(0)), prevEnd, NEG)
	nll := b.reshape(b.o("neg", lse(last, prevEnd)), []int{N})
	// PyTorch's gradient w.r.t. log_probs (ctc_loss_backward) is
	// exp(lp) - exp(log(alpha·beta) + nll - lp) on every frame t < Tn, not
	// only the second term (the derivative of the recursion): the exp(lp)
	// term is the one that cancels through a log_softmax. A term whose
	// value is exp(lp) - exp(lp) = 0 and whose gradient is exp(lp) gives it.
	tmask := b.o("lt", b.reshape(b.indexRange(0, T), []int{T, 1, 1}), b.reshape(inLen, []int{1, N, 1}))
	e := b.o("sub", b.o("exp", lp), b.o("exp", b.o("detach", lp)))
	nll = b.o("add", nll, b.o("sum", b.o("where", tmask, e, 0.0), ir.List{int64(0), int64(2)}))
	// feasible: input_length >= tl + repeats (labels equal to the one before)
	need := tLen
	if skip != nil {
		rep := b.o("logical_and", b.o("logical_and", b.o("logical_not", skip), b.reshape(odd, []int{1, L})),
			b.o("logical_and", valid, b.o("ge", b.reshape(s, []int{1, L}), int64(2))))
		need = b.o("add", tLen, b.o("sum", b.o("to_dtype", rep, tensor.Int64), ir.List{int64(1)}))
	}
	feasible := b.o("ge", inLen, need)
	var bad ir.Arg = math.Inf(1)
	if zeroInf {
		bad = 0.0
	} else {
		// Without zero_infinity, PyTorch's gradient of a sample with no
		// alignment is NaN on its frames t < Tn: ctc_loss_backward takes
		// exp(lp) - exp(log(alpha·beta) + nll - lp) with log(alpha·beta) =
		// -inf on every state and nll = inf. Its loss gets a term of value
		// 0 whose gradient there is NaN, as IEEE arithmetic gives it:
		// sqrt(d²) at d = lp - detach(lp) = 0 has the gradient
		// g / (2·sqrt(0)) · 2d = inf · 0 (the other frames and samples take
		// sqrt(1) through where, so their gradient stays 0).
		m := b.o("logical_and", tmask, b.reshape(b.o("logical_not", feasible), []int{1, N, 1}))
		d := b.o("sub", lp, b.o("detach", lp))
		nan := b.o("where", m, b.o("sqrt", b.o("where", m, b.o("mul", d, d), 1.0)), 0.0)
		bad = b.o("add", b.o("sum", nan, ir.List{int64(0), int64(2)}), math.Inf(1))
	}
	loss := b.o("where", feasible, nll, bad)
	red, _ := a[5].(string)
	if n, ok := a[5].(int64); ok && n >= 0 && n <= 2 {
		red = []string{"none", "mean", "sum"}[n]
	}
	if red == "mean" { // each loss over its target length, then reduceC's batch mean
		loss = b.o("div", loss, b.o("to_dtype", b.clampC(tLen, int64(1), nil), dt))
	}
	return b.reduceC(loss, a[5], lp)
}
