package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// indexBySelect lowers advanced indexing by int64 index tensors in adjacent
// dims (x[:, idx], DLRM's Z[:, li, lj], W[r[:, None], c]) to index_select,
// which compiles, instead of aten.index, which runs as an eager fallback:
// each index wrapped once if negative (i < 0 ? i + size : i, as PyTorch; an
// index still out of range fails index_select's bound check as PyTorch's
// IndexError), the indexed dims flattened row-major into one of size
// prod(sizes) and the (broadcast) indices into one position in it, then
// index_select along it and a view to PyTorch's result shape
// x.shape[:k] + broadcast(indices).shape + x.shape[k+m:]. nil: another form
// (bool masks, lists of ints, index tensors separated by a slice, empty
// sizes), left to aten.index.
func indexBySelect(b *builder, v ir.Arg, list ir.List) ir.Arg {
	xs := b.shape(v)
	var ks []int
	for i, p := range list {
		if p == nil {
			continue
		}
		n, ok := p.(*ir.Node)
		m := b.meta(n)
		if !ok || m == nil || m.DType != tensor.Int64 || (len(ks) > 0 && ks[len(ks)-1] != i-1) || i >= len(xs) {
			return nil
		}
		ks = append(ks, i)
	}
	if len(ks) == 0 {
		return nil
	}
	k, m := ks[0], len(ks)
	block := 1
	var lin ir.Arg
	for _, d := range ks {
		size := int64(xs[d])
		if size == 0 {
			return nil
		}
		i := list[d]
		i = b.o("where", b.o("lt", i, int64(0)), b.o("add", i, size), i)
		if lin == nil {
			lin = i
		} else {
			lin = b.o("add", b.o("mul", lin, size), i)
		}
		block *= xs[d]
	}
	S := b.shape(lin)
	n := 1
	for _, s := range S {
		n *= s
	}
	if n == 0 || b.err != nil {
		return nil
	}
	rest := xs[k+m:]
	flat := append(append(append([]int{}, xs[:k]...), block), rest...)
	sel := b.o("index_select", b.reshape(v, flat), int64(k), b.reshape(lin, []int{n}))
	return b.reshape(sel, append(append(append([]int{}, xs[:k]...), S...), rest...))
}
