package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// opmath runs a decomposition's arithmetic as PyTorch's CPU kernel runs it
// for a float16 or bfloat16 tensor: in float (at::opmath_type; the
// reductions of norm and the pooling kernels accumulate in float) with one
// rounding of the result, not a rounding after every primitive op the
// decomposition is made of. It returns x widened to float32 and the
// function that rounds a result back to x's dtype; other dtypes pass
// through unchanged.
func (b *builder) opmath(x ir.Arg) (ir.Arg, func(ir.Arg) ir.Arg) {
	dt := b.dtype(x)
	if dt != tensor.Float16 && dt != tensor.BFloat16 {
		return x, func(r ir.Arg) ir.Arg { return r }
	}
	return b.o("to_dtype", x, tensor.Float32), func(r ir.Arg) ir.Arg { return b.o("to_dtype", r, dt) }
}
