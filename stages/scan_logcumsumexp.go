package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// logcumsumexp is a core op like cumsum (stages/scan.go): the loop IR makes
// it an extern that render/scan.go writes as one linear scan per row, the
// running value in double as ATen's CPU kernel keeps it, where its
// decomposition was a masked [n, n] reduction (quadratic in the scanned
// length). Its gradient is PyTorch's logcumsumexp_backward:
//
//	exp(rev_lcse(where(grad > 0, log|grad|, lowest) - result) + self)
//	  - exp(rev_lcse(where(grad < 0, log|grad|, lowest) - result) + self)
//
// rev_lcse the logcumsumexp of the flipped tensor, flipped back; lowest the
// dtype's most negative finite value.
func init() {
	if derivatives == nil {
		panic("stages: scan_logcumsumexp.go initialised before derivatives.go")
	}
	ir.MarkCore("aten.logcumsumexp")
	derivatives["logcumsumexp"] = dUnary("self: exp(rev_lcse(log(grad+) - result) + self) - exp(rev_lcse(log(grad-) - result) + self) (PyTorch's logcumsumexp_backward)",
		func(c *dctx) *ir.Node {
			xs := c.sizes(0)
			if len(xs) == 0 || numelOf(xs) == 0 {
				return c.g
			}
			d := c.dim(c.num(c.a[1]), len(xs))
			dt := c.meta(0).DType
			lowest := c.op("full", dInts(nil), -tensor.FiniteMax(dt), dt)
			logAbs := c.op("log", c.op("abs", c.g))
			rev := c.op("arange", int64(xs[d]-1), int64(-1), int64(-1))
			revLcse := func(x *ir.Node) *ir.Node {
				return c.op("index_select", c.op("logcumsumexp", c.op("index_select", x, int64(d), rev), int64(d)), int64(d), rev)
			}
			part := func(sign string) *ir.Node {
				lg := c.op("where", c.op(sign, c.g, 0.0), logAbs, lowest)
				return c.op("exp", c.op("add", revLcse(c.op("sub", lg, c.n)), c.a[0]))
			}
			return c.op("sub", part("gt"), part("lt"))
		})
}
