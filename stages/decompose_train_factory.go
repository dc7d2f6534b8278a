package stages

import "gcdbg/ir"

// Decompositions of the factory random draws (ir/ops_train_factory.go).
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
