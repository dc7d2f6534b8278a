package stages

import (
	"gcdbg/ir"
)

// cumsum is a core op: the loop IR makes it an extern that render/scan.go
// writes as one linear scan per row, where a decomposition into core ops
// was a masked [n, n] reduction (quadratic: a 16,384-long cumsum needed a
// 268-million-element mask per row). Its gradient is the reverse cumsum,
// as PyTorch's cumsum_backward computes it: the incoming gradient flipped
// along dim, cumsummed and flipped back (flips as index_select with a
// descending arange), in self's dtype.
func init() {
	if derivatives == nil {
		panic("stages: scan.go initialised before derivatives.go")
	}
	ir.MarkCore("aten.cumsum")
	derivatives["cumsum"] = dUnary("self: grad.flip(dim).cumsum(dim).flip(dim), in self's dtype", func(c *dctx) *ir.Node {
		m := c.meta(0)
		xs := m.Shape.Sizes()
		g := c.g
		if len(xs) > 0 {
			d := c.dim(c.num(c.a[1]), len(xs))
			n := xs[d]
			rev := c.op("arange", int64(n-1), int64(-1), int64(-1))
			g = c.op("index_select", c.op("cumsum", c.op("index_select", g, int64(d), rev), int64(d)), int64(d), rev)
		}
		if g.Meta.Tensor != nil && g.Meta.Tensor.DType != m.DType {
			g = c.op("to_dtype", g, m.DType)
		}
		return g
	})
}
