package stages

import (
	"slices"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// indexPutMask rewrites index_put with one bool mask over self's leading
// dims and a value that broadcasts to the unindexed dims (what
// `labels[iou < 0.4] = 0` and `x[mask] = v` functionalize to) as
// where(mask, value, self) — self + where(mask, value, 0) with
// accumulate — which compiles, where index_put runs as an eager fallback.
// Every masked position receives the same value, so the result does not
// depend on how many are selected. PyTorch's IndexError cases (a mask whose
// shape differs from the dims it indexes) and values of the selection's
// length (data-dependent) return nil: index_put keeps them.
func indexPutMask(b *builder, a []ir.Arg) ir.Arg {
	x, idx, v := a[0], a[1], a[2]
	acc, _ := a[3].(bool)
	if t, ok := idx.(ir.Tuple); ok && len(t) == 1 {
		idx = t[0]
	}
	if l, ok := idx.(ir.List); ok && len(l) == 1 {
		idx = l[0]
	}
	if _, ok := idx.(*ir.Node); !ok {
		return nil
	}
	var m ir.Arg = idx
	mm, xm := b.meta(m), b.meta(x)
	if mm == nil || xm == nil || mm.DType != tensor.Bool {
		return nil
	}
	ms, xs := mm.Shape.Sizes(), xm.Shape.Sizes()
	if len(ms) == 0 || len(ms) > len(xs) || !slices.Equal(ms, xs[:len(ms)]) {
		return nil
	}
	rest := xs[len(ms):]
	dt := xm.DType
	if vm := b.meta(v); vm != nil {
		vs := vm.Shape.Sizes()
		if len(vs) == len(rest)+1 && vs[0] == 1 {
			vs = vs[1:]
		}
		if len(vs) > len(rest) {
			return nil
		}
		if s, err := tensor.BroadcastShapes(vs, rest); err != nil || !slices.Equal(s, rest) {
			return nil
		}
		if len(vs) != len(vm.Shape.Sizes()) {
			v = b.reshape(v, vs)
		}
	}
	v = b.storedAs(v, dt)
	if len(rest) > 0 {
		shape := append(append([]int{}, ms...), make([]int, len(rest))...)
		for i := len(ms); i < len(shape); i++ {
			shape[i] = 1
		}
		m = b.reshape(m, shape)
	}
	if acc {
		var zero ir.Arg = castNumber(0.0, dt)
		return b.o("add", x, b.o("where", m, v, zero))
	}
	return b.o("where", m, v, x)
}
