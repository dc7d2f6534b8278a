package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// index_add, index_copy and index_fill (ir/ops_index_add.go,
// ir/ops_index_fill_copy.go) as scatters: index_add is scatter_add and
// index_copy scatter (the last of repeated indices wins, as PyTorch's CPU
// kernel) of the index viewed along dim and expanded to source's shape,
// index_fill a where over a mask along dim. alpha is truncated for an
// integer self, a number value converted to self's dtype, as PyTorch.
func init() {
	decompositions = append(decompositions,
		decomposition{"aten.index_add",
			"index_add(self, dim, index, source, alpha) = scatter_add(self, dim, index viewed along dim and expanded to source's shape, source * alpha)",
			func(b *builder, a []ir.Arg) ir.Arg {
				x, src := a[0], a[3]
				d := b.dim(a[1], len(b.shape(x)))
				if alpha := castNumber(a[4], b.dtype(x)); alpha != int64(1) && alpha != 1.0 {
					src = b.o("mul", src, alpha)
				}
				return b.o("scatter_add", x, int64(d), b.indexAlong(a[2], d, b.shape(src)), src)
			}},
		decomposition{"aten.index_copy",
			"index_copy(self, dim, index, source) = scatter(self, dim, index viewed along dim and expanded to source's shape, source)",
			func(b *builder, a []ir.Arg) ir.Arg {
				d := b.dim(a[1], len(b.shape(a[0])))
				return b.o("scatter", a[0], int64(d), b.indexAlong(a[2], d, b.shape(a[3])), a[3])
			}},
		decomposition{"aten.index_fill",
			"index_fill(self, dim, index, value) = where(m, value, self), m = gt(scatter(zeros(self.size(dim)), 0, where(index < 0, index + size, index), 1.0), 0) viewed along dim",
			func(b *builder, a []ir.Arg) ir.Arg {
				x, idx := a[0], a[2]
				xs := b.shape(x)
				d := b.dim(a[1], len(xs))
				size := 1
				if len(xs) > 0 {
					size = xs[d]
				}
				if len(b.shape(idx)) == 0 {
					idx = b.reshape(idx, []int{1})
				}
				idx = b.o("where", b.o("lt", idx, int64(0)), b.o("add", idx, int64(size)), idx)
				m := b.o("gt", b.o("scatter", b.o("full", sizesArg([]int{size}), 0.0, tensor.Float32), int64(0), idx, nil, 1.0), 0.0)
				if len(xs) > 0 {
					shape := make([]int, len(xs))
					for i := range shape {
						shape[i] = 1
					}
					shape[d] = size
					m = b.reshape(m, shape)
				} else {
					m = b.reshape(m, nil)
				}
				return b.o("where", m, b.storedAs(a[3], b.dtype(x)), x)
			}},
	)
}

// indexAlong is a vector (or scalar) index as int64 (scatter and its
// gradient, gather, take int64), viewed along dim d and expanded to shape
// ss; a 0-dim ss takes it as a scalar.
func (b *builder) indexAlong(idx ir.Arg, d int, ss []int) ir.Arg {
	if b.dtype(idx) != tensor.Int64 {
		idx = b.o("to_dtype", idx, tensor.Int64)
	}
	if len(ss) == 0 {
		return b.reshape(idx, nil)
	}
	shape := make([]int, len(ss))
	for i := range shape {
		shape[i] = 1
	}
	shape[d] = ss[d]
	return b.o("expand", b.reshape(idx, shape), sizesArg(ss))
}
