package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Order statistics (ir/ops_kth.go) in core ops: a stable sort along the dim
// (NaN sorts last, as ATen's quickselect compares), then the element at the
// wanted rank. The value is gather(x, idx) so its gradient goes to the
// selected index only, as PyTorch's value_selecting_reduction_backward
// does; median() over all elements spreads it evenly over the elements
// equal to the result (evenly_distribute_backward).

func init() {
	decompositions = append(decompositions, kthDecompositions...)
	sortDecompositions()
}

// rankAlong picks the element of sorted rank r along d (idx from a stable
// ascending sort) and, when nanFirst, the first NaN of a slice holding one
// instead: (values, indices) with the dim removed or kept.
func (b *builder) rankAlong(x ir.Arg, d, r int, nanFirst, keepdim bool) ir.Arg {
	s := b.o("sort", x, int64(d), false, true)
	idx := b.o("select", b.o("getitem", s, int64(1)), int64(d), int64(r))
	if nanFirst && b.dtype(x).IsFloat() {
		isnan := b.o("to_dtype", b.o("isnan", x), tensor.Int64)
		any := b.o("gt", b.o("sum", isnan, ir.Tuple{int64(d)}), int64(0))
		idx = b.o("where", any, b.o("argmax", isnan, int64(d)), idx)
	}
	ui := b.o("unsqueeze", idx, int64(d))
	v := b.o("gather", x, int64(d), ui)
	if keepdim {
		return ir.Tuple{v, ui}
	}
	return ir.Tuple{b.o("squeeze", v, int64(d)), idx}
}

var kthDecompositions = []decomposition{
	{"aten.kthvalue", "kthvalue(x, k, d) = (gather(x, d, i), i), i = select(sort(x, d, stable)[1], d, k - 1)",
		func(b *builder, a []ir.Arg) ir.Arg {
			xs := b.shape(a[0])
			k := b.int(a[1])
			if len(xs) == 0 {
				d := b.dim(a[2], 1)
				if k != 1 || d != 0 {
					b.failf("kthvalue(): selected number k out of range for dimension %d", d)
					return nil
				}
				return ir.Tuple{b.o("clone", a[0]), b.o("full", ir.Tuple{}, int64(0), tensor.Int64)}
			}
			d := b.dim(a[2], len(xs))
			if k < 1 || k > xs[d] {
				b.failf("kthvalue(): selected number k out of range for dimension %d", d)
				return nil
			}
			return b.rankAlong(a[0], d, k-1, false, b.bool(a[3]))
		}},
	{"aten.median", "median(x, d) = (gather(x, d, i), i), i = the first NaN's index where the slice has one, else select(sort(x, d, stable)[1], d, (n - 1) / 2); median(x) = v + sum(where(x == v, x - detach(x), 0)) / count(x == v), v that of the flattened x (NaN if any)",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			xs := b.shape(x)
			if a[1] != nil {
				if len(xs) == 0 {
					b.dim(a[1], 1)
					return ir.Tuple{b.o("clone", x), b.o("full", ir.Tuple{}, int64(0), tensor.Int64)}
				}
				d := b.dim(a[1], len(xs))
				if xs[d] == 0 {
					b.failf("median(): Expected reduction dim %d to have non-zero size.", d)
					return nil
				}
				return b.rankAlong(x, d, (xs[d]-1)/2, true, b.bool(a[2]))
			}
			n := numelOf(xs)
			dt := b.dtype(x)
			if n == 0 {
				return b.o("full", ir.Tuple{}, math.NaN(), dt)
			}
			flat := b.reshape(x, []int{n})
			v := b.o("squeeze", b.rankAlong(flat, 0, (n-1)/2, true, true).(ir.Tuple)[0], int64(0))
			if !dt.IsFloat() {
				return v
			}
			// The value is v; the gradient is spread evenly over the
			// elements equal to it (NaN ones when v is NaN). Infinite
			// elements get none: x - detach(x) would be NaN there.
			vd := b.o("detach", v)
			eq := b.o("logical_or", b.o("eq", flat, vd), b.o("logical_and", b.o("isnan", flat), b.o("isnan", vd)))
			fin := b.o("logical_and", eq, b.o("logical_not", b.o("isinf", flat)))
			zero := b.o("full", ir.Tuple{}, int64(0), dt)
			delta := b.o("sum", b.o("where", fin, b.o("sub", flat, b.o("detach", flat)), zero))
			count := b.o("sum", b.o("to_dtype", eq, dt))
			return b.o("add", vd, b.o("where", b.o("isnan", delta), zero, b.o("div", delta, count)))
		}},
}
