package stages

import (
	"gcdbg/ir"
)

// cumsum and cumprod are core ops: the loop IR makes them externs that
// render/scan.go writes as one linear scan per row, where a decomposition
// into core ops was a masked [n, n] reduction (quadratic: a 16,384-long
// cumsum needed a 268-million-element mask per row).
//
// cumsum's gradient is the reverse cumsum, as PyTorch's cumsum_backward
// computes it: the incoming gradient flipped along dim, cumsummed and
// flipped back (flips as index_select with a descending arange). cumprod's
// is PyTorch's cumprod_backward: reverse_cumsum(result * grad) / self
// before a row's first zero; at the first zero, the product of the
// elements before it times sum over i >= z of grad[i] * the product of the
// elements after z up to i; zero after it. Both in self's dtype.
func init() {
	if derivatives == nil {
		panic("stages: scan.go initialised before derivatives.go")
	}
	ir.MarkCore("aten.cumsum")
	ir.MarkCore("aten.cumprod")
	derivatives["cumsum"] = dUnary("self: grad.flip(dim).cumsum(dim).flip(dim), in self's dtype", func(c *dctx) *ir.Node {
		g := c.g
		if xs := c.sizes(0); len(xs) > 0 {
			d := c.dim(c.num(c.a[1]), len(xs))
			g = reverseCumsum(c, g, d, xs[d])
		}
		return c.toSelf(g)
	})
	derivatives["cumprod"] = dUnary("self: reversed_cumsum(result * grad, dim) / self before each slice's first zero; "+
		"at it, prod(self before it) * sum(grad * cumprod(self with ones up to it), over the rest); 0 after it (PyTorch's cumprod_backward)",
		func(c *dctx) *ir.Node {
			xs := c.sizes(0)
			if len(xs) == 0 || xs[c.dim(c.num(c.a[1]), len(xs))] <= 1 {
				return c.toSelf(c.g)
			}
			d := c.dim(c.num(c.a[1]), len(xs))
			x := c.a[0]
			isZero := c.op("eq", x, 0.0)
			zerosUpTo := c.op("cumsum", isZero, int64(d))                                                // zeros at or before each point (int64)
			zerosBefore := c.op("sub", zerosUpTo, c.op("to_dtype", isZero, zerosUpTo.Meta.Tensor.DType)) // strictly before
			before := c.op("eq", zerosUpTo, int64(0))
			atFirst := c.op("logical_and", isZero, c.op("eq", zerosBefore, int64(0)))
			safe := c.op("where", before, x, 1.0)
			gBefore := c.op("where", before, c.op("div", reverseCumsum(c, c.op("mul", c.n, c.g), d, xs[d]), safe), 0.0)
			ones := c.op("cumprod", c.op("where", c.op("eq", zerosBefore, int64(0)), 1.0, x), int64(d))
			term := c.op("sum", c.op("where", c.op("ge", zerosUpTo, int64(1)), c.op("mul", c.g, ones), 0.0), dInts([]int{d}), true)
			gAt := c.op("where", atFirst, c.op("mul", c.op("prod", safe, int64(d), true), term), 0.0)
			return c.toSelf(c.op("add", gBefore, gAt))
		})
}

// reverseCumsum is g flipped along d (of size n), cumsummed, flipped back.
func reverseCumsum(c *dctx, g *ir.Node, d, n int) *ir.Node {
	rev := c.op("arange", int64(n-1), int64(-1), int64(-1))
	return c.op("index_select", c.op("cumsum", c.op("index_select", g, int64(d), rev), int64(d)), int64(d), rev)
}

// toSelf converts a gradient to the dtype of the op's first input.
func (c *dctx) toSelf(g *ir.Node) *ir.Node {
	if dt := c.meta(0).DType; g.Meta.Tensor != nil && g.Meta.Tensor.DType != dt {
		return c.op("to_dtype", g, dt)
	}
	return g
}
