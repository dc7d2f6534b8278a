package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decompositions of the factory random draws (ir/ops_train_factory.go,
// ir/ops_randperm.go).
// The normalized stage replaces each rand/randn node by PyTorch's recorded
// draw or by a draw at the node's own offset (training.go); these rows
// decompose the op itself (its draw at offset 0), as the rand_like rows do.
func init() {
	decompositions = append(decompositions,
		decomposition{"aten.rand", "rand(size, dtype) = philox_rand(size, 0, 0, dtype or float32) (the normalized stage gives each node its own offset or PyTorch's recorded draw)",
			func(b *builder, a []ir.Arg) ir.Arg {
				return decompPhiloxRand(b, []ir.Arg{factorySize(a[0]), int64(0), int64(0), a[2]})
			}},
		decomposition{"aten.randn", "randn(size, dtype) = philox_randn(size, 0, 0, dtype or float32), decomposed (the normalized stage gives each node its own offset or PyTorch's recorded draw)",
			func(b *builder, a []ir.Arg) ir.Arg {
				return decompPhiloxRandn(b, []ir.Arg{factorySize(a[0]), int64(0), int64(0), a[2]})
			}},
		decomposition{"aten.randperm", "randperm(n, dtype) = to_dtype(sort(philox_rand([n], 0, 0, float64), 0, stable)[1], dtype or int64) (its stable argsort; the normalized stage gives each node its own offset or PyTorch's recorded draw)",
			func(b *builder, a []ir.Arg) ir.Arg {
				u := decompPhiloxRand(b, []ir.Arg{sizesArg([]int{b.int(a[0])}), int64(0), int64(0), tensor.Float64})
				p := b.o("getitem", b.o("sort", u, int64(0), false, true), int64(1))
				if dt, ok := a[2].(tensor.DType); ok && dt != tensor.Int64 {
					return b.o("to_dtype", p, dt)
				}
				return p
			}},
	)
}

// factorySize is the size of rand(*size) as one tuple of ints: the sizes
// themselves, or the one list or tuple they were passed as (rand([2, 3])).
func factorySize(a ir.Arg) ir.Arg {
	if t, ok := a.(ir.Tuple); ok && len(t) == 1 {
		if l, ok := t[0].(ir.List); ok {
			return ir.Tuple(l)
		}
		if in, ok := t[0].(ir.Tuple); ok {
			return in
		}
	}
	return a
}
