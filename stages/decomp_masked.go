package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// masked_scatter as core ops with static shapes: the k-th true position of
// the (broadcast) mask reads source's k-th element, k = cumsum(mask) - 1,
// through index_select; where keeps self elsewhere. Its gradients follow
// from where and index_select: self's is grad where mask is false, source's
// the masked grad scattered back in order (PyTorch's masked_scatter_backward).
func init() {
	decompositions = append(decompositions, decomposition{"aten.masked_scatter",
		"masked_scatter(x, m, s) = where(m, view(index_select(view(s, [-1]), 0, where(m, cumsum(m) - 1, 0)), shape), x), m broadcast with x",
		decompMaskedScatter})
	sortDecompositions()
}

func decompMaskedScatter(b *builder, a []ir.Arg) ir.Arg {
	x, m, s := a[0], a[1], a[2]
	shape, err := tensor.BroadcastShapes(b.shape(x), b.shape(m))
	if err != nil {
		b.failf("masked_scatter: %v", err)
		return nil
	}
	n, sn := tensor.Numel(shape), tensor.Numel(b.shape(s))
	if b.dtype(m) != tensor.Bool {
		m = b.o("ne", m, int64(0))
	}
	mb := b.o("expand", m, sizesArg(shape))
	xb := b.o("expand", x, sizesArg(shape))
	if n == 0 || sn == 0 { // nothing to read (the op itself checked that no position needs a value)
		return b.o("clone", xb)
	}
	flat := b.reshape(mb, []int{n})
	k := b.o("sub", b.o("cumsum", b.o("to_dtype", flat, tensor.Int64), int64(0), nil), int64(1))
	k = b.clampC(k, int64(0), int64(sn-1))
	vals := b.o("index_select", b.reshape(s, []int{sn}), int64(0), k)
	return b.o("where", mb, b.reshape(vals, shape), xb)
}
