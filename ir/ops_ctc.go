package ir

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// CTCShapes checks ctc_loss's operands in the form gcdbg takes: log_probs
// [T, N, C] (floating), targets padded to [N, S] (int64), input_lengths and
// target_lengths [N] (int64 tensors). It returns T, N, C, S. The
// concatenated 1-D targets form and Python-list lengths are refused with
// what to write instead.
func CTCShapes(lp, tg, il, tl *TensorMeta) (T, N, C, S int, err error) {
	ls, ts := lp.Shape.Sizes(), tg.Shape.Sizes()
	if len(ls) != 3 {
		return 0, 0, 0, 0, fmt.Errorf("ctc_loss: gcdbg takes batched log_probs of shape (T, N, C), got %v", ls)
	}
	T, N, C = ls[0], ls[1], ls[2]
	if !lp.DType.IsFloat() {
		return 0, 0, 0, 0, fmt.Errorf("ctc_loss: log_probs must be floating, got %s", lp.DType)
	}
	if len(ts) != 2 || ts[0] != N {
		return 0, 0, 0, 0, fmt.Errorf("ctc_loss: gcdbg takes targets padded to (N, S) = (%d, S), got %v (the concatenated 1-D form is not supported: pad the targets to the longest)", N, ts)
	}
	if tg.DType != tensor.Int64 && tg.DType != tensor.Int32 {
		return 0, 0, 0, 0, fmt.Errorf("ctc_loss: targets must be int64 or int32, got %s", tg.DType)
	}
	for _, l := range []*TensorMeta{il, tl} {
		if s := l.Shape.Sizes(); len(s) != 1 || s[0] != N || (l.DType != tensor.Int64 && l.DType != tensor.Int32) {
			return 0, 0, 0, 0, fmt.Errorf("ctc_loss: input_lengths and target_lengths must be int tensors of shape (%d), got %s%v", N, l.DType, s)
		}
	}
	return T, N, C, ts[1], nil
}

func ctcMetas(a Args) ([4]*TensorMeta, error) {
	var m [4]*TensorMeta
	for i := range m {
		if i >= 2 {
			if v, ok := CTCLengths(a.V[i]); ok {
				m[i] = contig(tensor.Int64, []int{len(v)})
				continue
			}
		}
		t, err := a.meta(i)
		if err != nil {
			if i >= 2 {
				return m, fmt.Errorf("ctc_loss: input_lengths and target_lengths must be int tensors or lists of ints, got %s", typeName(a.V[i]))
			}
			return m, err
		}
		m[i] = t
	}
	return m, nil
}

// CTCLengths is a Python list or tuple of ints given as ctc_loss's
// input_lengths or target_lengths (PyTorch takes both forms).
func CTCLengths(v Value) ([]int64, bool) {
	var items []Value
	switch x := v.(type) {
	case List:
		items = x
	case Tuple:
		items = x
	default:
		return nil, false
	}
	out := make([]int64, len(items))
	for i, it := range items {
		n, ok := it.(int64)
		if !ok {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

func init() {
	d := Register("ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean', zero_infinity=False)", KindLoss, func(a Args) (Value, error) {
		r := &ar{a: a}
		lens := [2]*tensor.Tensor{}
		for j := range lens {
			if v, ok := CTCLengths(a.V[2+j]); ok {
				lens[j] = tensor.FromInts(tensor.Int64, []int{len(v)}, v)
			} else {
				lens[j] = r.t(2 + j)
			}
		}
		lp, tg, il, tl := r.t(0), r.t(1), lens[0], lens[1]
		blank, zero := r.i(4), r.b(6)
		if r.err != nil {
			return nil, r.err
		}
		T, N, C, S, err := CTCShapes(MetaOf(lp).(*TensorMeta), MetaOf(tg).(*TensorMeta), MetaOf(il).(*TensorMeta), MetaOf(tl).(*TensorMeta))
		if err != nil {
			return nil, err
		}
		lv, tv, iv, lenv := lp.Contiguous().Floats(), tg.Contiguous().Ints(), il.Contiguous().Ints(), tl.Contiguous().Ints()
		out := make([]float64, N)
		for n := 0; n < N; n++ {
			out[n] = ctcNLL(lv, tv[n*S:(n+1)*S], int(iv[n]), int(lenv[n]), n, N, C, T, S, blank)
			if zero && math.IsInf(out[n], 1) {
				out[n] = 0
			}
		}
		if red, _ := a.V[5].(string); red == "mean" || a.V[5] == int64(1) {
			for n := range out {
				out[n] /= float64(max(lenv[n], 1))
			}
		}
		return reduceLoss(tensor.FromFloats(lp.DType, []int{N}, out), a.V[5])
	})
	d.Infer = func(a Args) (Value, error) {
		m, err := ctcMetas(a)
		if err != nil {
			return nil, err
		}
		_, N, _, _, err := CTCShapes(m[0], m[1], m[2], m[3])
		if err != nil {
			return nil, err
		}
		if r, _ := a.V[5].(string); r == "none" || a.V[5] == int64(0) {
			return contig(m[0].DType, []int{N}), nil
		}
		return contig(m[0].DType, []int{}), nil
	}
}

// ctcNLL is one sequence's -log p(target | log_probs) by the alpha
// recursion over the blank-extended target (Graves et al. 2006), in log
// space with -inf for unreachable states (PyTorch's ctc_loss_cpu).
func ctcNLL(lp []float64, tgt []int64, in, tl, n, N, C, T, S, blank int) float64 {
	if tl > S || in > T || in < 0 || tl < 0 {
		return math.NaN()
	}
	L := 2*tl + 1
	ext := func(s int) int {
		if s%2 == 0 {
			return blank
		}
		return int(tgt[s/2])
	}
	at := func(t, c int) float64 { return lp[(t*N+n)*C+c] }
	ninf := math.Inf(-1)
	alpha := make([]float64, L)
	for s := range alpha {
		alpha[s] = ninf
	}
	if in == 0 {
		if tl == 0 {
			return 0
		}
		return math.Inf(1)
	}
	alpha[0] = at(0, blank)
	if L > 1 {
		alpha[1] = at(0, ext(1))
	}
	next := make([]float64, L)
	for t := 1; t < in; t++ {
		for s := 0; s < L; s++ {
			v := []float64{alpha[s]}
			if s >= 1 {
				v = append(v, alpha[s-1])
			}
			if s >= 2 && s%2 == 1 && ext(s) != ext(s-2) {
				v = append(v, alpha[s-2])
			}
			next[s] = logSumExp(v) + at(t, ext(s))
		}
		alpha, next = next, alpha
	}
	v := []float64{alpha[L-1]}
	if L > 1 {
		v = append(v, alpha[L-2])
	}
	return -logSumExp(v)
}

func logSumExp(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for _, x := range v {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}
