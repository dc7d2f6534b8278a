package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// index_add (ir/ops_index_add.go) as scatter_add: the index viewed along
// dim (as int64) and expanded to source's shape, source times alpha (alpha
// truncated for an integer self, as PyTorch).
func init() {
	decompositions = append(decompositions, decomposition{"aten.index_add",
		"index_add(self, dim, index, source, alpha) = scatter_add(self, dim, index viewed along dim and expanded to source's shape, source * alpha)",
		func(b *builder, a []ir.Arg) ir.Arg {
			x, idx, src := a[0], a[2], a[3]
			if b.dtype(idx) != tensor.Int64 { // int32: scatter_add and its gather take int64
				idx = b.o("to_dtype", idx, tensor.Int64)
			}
			ss := b.shape(src)
			d := b.int(a[1])
			if d < 0 {
				d += max(len(b.shape(x)), 1)
			}
			if alpha := castNumber(a[4], b.dtype(x)); alpha != int64(1) && alpha != 1.0 {
				src = b.o("mul", src, alpha)
			}
			if len(ss) == 0 {
				return b.o("scatter_add", x, int64(d), b.reshape(idx, nil), src)
			}
			shape := make([]int, len(ss))
			for i := range shape {
				shape[i] = 1
			}
			shape[d] = ss[d]
			return b.o("scatter_add", x, int64(d), b.o("expand", b.reshape(idx, shape), sizesArg(ss)), src)
		}})
}
