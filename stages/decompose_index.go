package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decompositions of tensor indexing and of the losses (which index by target).

// decompGetitem lowers x[idx] the way PyTorch's applySlicing does: the basic
// items become views (select, slice, unsqueeze) left to right; the advanced
// items (index tensors, bool masks, lists of ints) are then applied by one
// aten.index over the view, None standing for the dims they skip.
func decompGetitem(b *builder, a []ir.Arg) ir.Arg {
	x := a[0]
	var parts []ir.Arg
	if t, ok := a[1].(ir.Tuple); ok {
		parts = t
	} else {
		parts = []ir.Arg{a[1]}
	}
	nd := len(b.shape(x))
	consumed := 0
	for _, p := range parts {
		switch v := p.(type) {
		case int64, ir.Slice, ir.List:
			consumed++
		case *ir.Node:
			if m := b.meta(v); m != nil && (m.DType == tensor.Bool || m.DType == tensor.Uint8) {
				consumed += max(len(m.Shape), 1)
			} else {
				consumed++
			}
		}
	}
	if consumed > nd {
		b.failf("too many indices for tensor of dimension %d", nd)
		return nil
	}
	type adv struct {
		dim  int
		idx  ir.Arg
		dims int // how many dims it consumes (a bool mask: its rank)
	}
	var advs []adv
	v, dim := x, 0
	for _, p := range parts {
		vs := b.shape(v)
		switch it := p.(type) {
		case int64:
			n := vs[dim]
			if int(it) < -n || int(it) >= n {
				b.failf("index %d is out of bounds for dimension %d with size %d", it, dim, n)
				return nil
			}
			v = b.call("aten.select", v, int64(dim), it)
		case ir.Slice:
			v = b.slice(v, dim, vs[dim], it)
			dim++
		case nil:
			v = b.call("aten.unsqueeze", v, int64(dim))
			dim++
		case ir.Ellipsis:
			dim += nd - consumed
		case ir.List:
			advs = append(advs, adv{dim, it, 1})
			dim++
		case *ir.Node:
			m := b.meta(it)
			if m == nil {
				b.failf("unsupported index %s", argText(p))
				return nil
			}
			k := 1
			if m.DType == tensor.Bool || m.DType == tensor.Uint8 {
				k = len(m.Shape)
				if k == 0 {
					b.failf("indexing with a 0-dim bool tensor is not supported")
					return nil
				}
			}
			advs = append(advs, adv{dim, it, k})
			dim += k
		default:
			b.failf("unsupported index %s", argText(p))
			return nil
		}
	}
	if len(advs) == 0 {
		return v
	}
	// One list item per consumed dim, except that a mask item covers its rank.
	var list ir.List
	extra := 0
	for _, ad := range advs {
		for len(list) < ad.dim-extra {
			list = append(list, nil)
		}
		list = append(list, ad.idx)
		extra += ad.dims - 1
	}
	if r := indexBySelect(b, v, list); r != nil { // decomp_index_select.go
		return r
	}
	return b.call("aten.index", v, list)
}

// slice emits x[start:stop:step] along dim, nothing for a full slice.
func (b *builder) slice(x ir.Arg, dim, size int, s ir.Slice) ir.Arg {
	start, stop, step := 0, size, 1
	if s.Start != nil {
		start = b.int(s.Start)
	}
	if s.Stop != nil {
		stop = b.int(s.Stop)
	}
	if s.Step != nil {
		step = b.int(s.Step)
	}
	if step <= 0 {
		b.failf("step must be greater than zero")
		return nil
	}
	// Python's clamping of out-of-range bounds, as slice would do.
	norm := func(i int) int {
		if i < 0 {
			i += size
		}
		return max(0, min(size, i))
	}
	start, stop = norm(start), norm(stop)
	if start == 0 && stop >= size && step == 1 {
		return x
	}
	return b.call("aten.slice", x, int64(dim), int64(start), int64(max(start, stop)), int64(step))
}

// nllParts computes, for log-probabilities lp (class dim cdim) and class
// targets t, the per-element losses and weights; both are 0 where
// t == ignore_index (a where, so a -inf log-probability there cannot make NaN).
func (b *builder) nllParts(lp, target, weight ir.Arg, ignore int64) (loss, w ir.Arg) {
	ls, ts := b.shape(lp), b.shape(target)
	if b.dtype(target) != tensor.Int64 {
		b.failf("expected scalar type Long but found %s for the target", b.dtype(target))
		return nil, nil
	}
	cdim := 1
	if len(ls) == 1 {
		cdim = 0
	}
	if len(ls) == 0 || len(ts) != len(ls)-1 {
		b.failf("expected target of %d dims for input of shape %v, got target of shape %v", max(len(ls)-1, 0), ls, ts)
		return nil, nil
	}
	keep := b.call("aten.ne", target, ignore)
	safe := b.call("aten.where", keep, target, int64(0))
	picked := b.call("aten.squeeze", b.gatherRows(lp, cdim, b.call("aten.unsqueeze", safe, int64(cdim))), int64(cdim)) // decomp_gather_rows.go
	if weight != nil {
		wt := b.call("aten.index_select", weight, int64(0), b.reshape(safe, []int{numelOf(ts)}))
		w = b.call("aten.where", keep, b.reshape(wt, ts), int64(0))
		loss = b.call("aten.mul", b.call("aten.neg", picked), w)
	} else {
		w = b.call("aten.to_dtype", keep, b.dtype(lp))
		loss = b.call("aten.neg", picked)
	}
	return b.call("aten.where", keep, loss, int64(0)), w
}

// reduceLoss applies reduction: none, sum, or mean = sum(loss) / sum(w).
func (b *builder) reduceLoss(loss, w ir.Arg, reduction string) ir.Arg {
	switch reduction {
	case "none":
		return loss
	case "sum":
		return b.call("aten.sum", loss)
	case "mean":
		return b.call("aten.div", b.call("aten.sum", loss), b.call("aten.sum", w))
	}
	b.failf("%s is not a valid value for reduction", reduction)
	return nil
}

func (b *builder) lossArgs(a []ir.Arg) (ignore int64, reduction string) {
	if a[3] != nil || a[5] != nil {
		b.failf("size_average and reduce are deprecated; use reduction")
	}
	return int64(b.int(a[4])), b.str(a[6])
}

func decompNllLoss(b *builder, a []ir.Arg) ir.Arg {
	ignore, red := b.lossArgs(a)
	loss, w := b.nllParts(a[0], a[1], a[2], ignore)
	return b.reduceLoss(loss, w, red)
}

func decompCrossEntropy(b *builder, a []ir.Arg) ir.Arg {
	x, target, weight := a[0], a[1], a[2]
	ignore, red := b.lossArgs(a)
	ls := b.float(a[7])
	xs := b.shape(x)
	if len(xs) == 0 {
		b.failf("cross_entropy: input must be at least 1-D, got a 0-D tensor")
		return nil
	}
	cdim := min(1, len(xs)-1)
	c := xs[cdim]
	lp := b.softmax([]ir.Arg{x, int64(cdim), nil}, true)
	// w viewed to broadcast against lp along the class dim.
	var wc ir.Arg
	if weight != nil {
		shape := []int{c}
		for i := cdim + 1; i < len(xs); i++ {
			shape = append(shape, 1)
		}
		wc = b.reshape(weight, shape)
	}
	if sameInts(xs, b.shape(target)) { // class probabilities
		t := target
		if ls > 0 {
			t = b.call("aten.add", b.call("aten.mul", target, 1-ls), ls/float64(c))
		}
		v := b.call("aten.mul", lp, t)
		if wc != nil {
			v = b.call("aten.mul", v, wc)
		}
		loss := b.call("aten.neg", b.call("aten.sum", v, sizesArg([]int{cdim})))
		switch red {
		case "none":
			return loss
		case "sum":
			return b.call("aten.sum", loss)
		case "mean":
			return b.call("aten.div", b.call("aten.sum", loss), int64(numelOf(xs)/max(c, 1)))
		}
		b.failf("%s is not a valid value for reduction", red)
		return nil
	}
	loss, w := b.nllParts(lp, target, weight, ignore)
	nll := b.reduceLoss(loss, w, red)
	if ls == 0 {
		return nll
	}
	// Label smoothing adds ls/C * (-sum over classes of w[c] * lp[c]), masked
	// and reduced like the NLL term (mean divides by the same sum of weights).
	v := ir.Arg(lp)
	if wc != nil {
		v = b.call("aten.mul", lp, wc)
	}
	smooth := b.call("aten.neg", b.call("aten.sum", v, sizesArg([]int{cdim})))
	smooth = b.call("aten.where", b.call("aten.ne", target, ignore), smooth, int64(0))
	sm := b.reduceLoss(smooth, w, red)
	return b.call("aten.add", b.call("aten.mul", nll, 1-ls), b.call("aten.mul", sm, ls/float64(c)))
}
