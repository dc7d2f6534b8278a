package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
	"math"
)

// Decompositions of ir/ops_ext_misc.go.

func init() {
	decompositions = append(decompositions, extMiscDecompositions...)
	sortDecompositions()
}

var extMiscDecompositions = []decomposition{
	{"aten.pymath", "folded: math.sqrt / exp / log / floor / ... of Python numbers, a Python value", foldPython},
	{"aten.one_hot", "one_hot(x, C) = to_dtype(eq(unsqueeze(x, -1), arange(C)), int64)",
		func(b *builder, a []ir.Arg) ir.Arg {
			c := b.int(a[1])
			if c < 0 {
				b.failf("one_hot: num_classes=-1 makes the shape depend on the data; pass num_classes")
				return nil
			}
			return b.o("to_dtype", b.o("eq", b.o("unsqueeze", a[0], int64(-1)), b.indexRange(0, c)), tensor.Int64)
		}},
	{"aten.dot", "dot(a, b) = matmul(a, b) (1-D by 1-D: mm of the views)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.matmul(a[0], a[1]) }},
	{"aten.mv", "mv(m, v) = matmul(m, v)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.matmul(a[0], a[1]) }},
	{"aten.outer", "outer(a, b) = unsqueeze(a, 1) * unsqueeze(b, 0)",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.o("mul", b.o("unsqueeze", a[0], int64(1)), b.o("unsqueeze", a[1], int64(0)))
		}},
	{"aten.unbind", "unbind(x, d) = (select(x, d, 0), select(x, d, 1), ...); getitem on the result is the select node",
		func(b *builder, a []ir.Arg) ir.Arg {
			xs := b.shape(a[0])
			if len(xs) == 0 {
				b.failf("unbind: Dimension specified as 0 but tensor has no dimensions")
				return nil
			}
			d := b.dim(a[1], len(xs))
			out := make(ir.Tuple, xs[d])
			for i := range out {
				out[i] = b.o("select", a[0], int64(d), int64(i))
			}
			return out
		}},
	{"aten.repeat_interleave", "repeat_interleave(x, n, d) = reshape(expand(unsqueeze(x, d + 1), n along d + 1), d merged); no d: of the flattened x",
		func(b *builder, a []ir.Arg) ir.Arg {
			x := a[0]
			n := b.int(a[1])
			if n < 0 {
				b.failf("repeats can not be negative")
				return nil
			}
			if a[2] == nil {
				x = b.reshape(x, []int{numelOf(b.shape(x))})
			}
			xs := b.shape(x)
			d := 0
			if a[2] != nil {
				d = b.dim(a[2], len(xs))
			}
			u := b.o("unsqueeze", x, int64(d+1))
			sh := append(append(append([]int{}, xs[:d+1]...), n), xs[d+1:]...)
			out := append([]int{}, xs...)
			out[d] *= n
			return b.reshape(b.o("clone", b.o("expand", u, sizesArg(sh))), out)
		}},
	{"aten.threshold", "threshold(x, t, v) = where(x > t or isnan(x), x, v)",
		func(b *builder, a []ir.Arg) ir.Arg {
			th, v := a[1], a[2]
			if dt := b.dtype(a[0]); !dt.IsFloat() && dt != tensor.Bool { // ATen converts both to the integer type
				th, v = int64(math.Trunc(b.float(th))), int64(math.Trunc(b.float(v)))
			}
			keep := b.o("logical_or", b.o("gt", a[0], th), b.o("isnan", a[0]))
			return b.o("where", keep, a[0], b.o("full", ir.Tuple{}, v, b.dtype(a[0])))
		}},
	// F.softmin is (-input).softmax(dim, dtype=dtype): the negation is in the input's dtype,
	// so a uint8 x gives 256 - x (wrapping) before the cast to dtype.
	{"aten.softmin", "softmin(x, d, dtype) = softmax(-x, d, dtype), -x in x's dtype",
		func(b *builder, a []ir.Arg) ir.Arg {
			return b.softmax([]ir.Arg{b.o("neg", a[0]), a[1], a[3]}, false)
		}},
	{"aten.new_zeros", "x.new_zeros(size) = full(size, 0, dtype or x.dtype)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.newFull(a[0], a[1], int64(0), a[2]) }},
	{"aten.new_ones", "x.new_ones(size) = full(size, 1, dtype or x.dtype)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.newFull(a[0], a[1], int64(1), a[2]) }},
	{"aten.new_empty", "x.new_empty(size) = full(size, 0, dtype or x.dtype) (contents unspecified in PyTorch)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.newFull(a[0], a[1], int64(0), a[2]) }},
	{"aten.new_full", "x.new_full(size, v) = full(size, v, dtype or x.dtype)",
		func(b *builder, a []ir.Arg) ir.Arg { return b.newFull(a[0], a[1], a[2], a[3]) }},
}

func (b *builder) newFull(x, size, v, dtype ir.Arg) ir.Arg {
	if dtype == nil {
		dtype = b.dtype(x)
	}
	return b.o("full", sizesArg(b.ints(size)), v, dtype)
}
