package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Decompositions of ir/ops_linspace.go. linspace and logspace are core
// (eager fallback: their values are PyTorch's vectorized kernel's, kept in
// tensor.Linspace and tensor.Logspace); eye is exact in any order.

func init() {
	decompositions = append(decompositions, decomposition{"aten.eye",
		"eye(n, m, dtype) = to_dtype(eq(unsqueeze(arange(n), 1), arange(m)), dtype)", decompEye})
	sortDecompositions()
}

func decompEye(b *builder, a []ir.Arg) ir.Arg {
	n, m := b.int(a[0]), 0
	if a[1] == nil {
		m = n
	} else {
		m = b.int(a[1])
	}
	dt := tensor.Float32
	if d, ok := a[2].(tensor.DType); ok {
		dt = d
	}
	switch {
	case n < 0 || m < 0:
		b.failf("eye: n and m must be greater or equal to 0, got %d and %d", n, m)
		return nil
	case dt == tensor.BFloat16:
		b.failf("\"eye\" not implemented for 'BFloat16'")
		return nil
	}
	return b.o("to_dtype", b.o("eq", b.o("unsqueeze", b.indexRange(0, n), int64(1)), b.indexRange(0, m)), dt)
}
