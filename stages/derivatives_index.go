package stages

import (
	"gcdbg/ir"
)

// multiIndexGrad is the gradient of x[..., i0, i1, ..., im, ...] with
// several integer index tensors in adjacent dims ks (DLRM's interaction
// gather Z[:, li, lj]): PyTorch's index_put(zeros, indices, g,
// accumulate=True). The indexed dims flatten into one of size
// prod(x.shape[ks]); each selected element's place in it is the row-major
// number of its (broadcast) indices, each taken modulo its dim's size as
// PyTorch wraps a negative index (an out-of-range index failed in the
// forward). The gradient, viewed with the broadcast index shape flattened
// the same way, scatter_adds there (repeated positions accumulate) and the
// result is viewed back to x's shape. Index tensors separated by a slice
// (x[i, :, j]) put the broadcast dims first in PyTorch's result: refused.
func multiIndexGrad(c *dctx, parts []ir.Arg, ks []int) {
	for j := 1; j < len(ks); j++ {
		if ks[j] != ks[j-1]+1 {
			c.fail("index tensors separated by a slice (%s) have no derivative here", ir.FormatArg(c.a[1], func(n *ir.Node) string { return n.Name }))
			return
		}
	}
	xs, gs := c.sizes(0), c.g.Meta.Tensor.Shape.Sizes()
	k, m := ks[0], len(ks)
	var lin *ir.Node
	block := 1
	for _, d := range ks {
		i := c.op("remainder", parts[d].(*ir.Node), int64(xs[d]))
		if lin == nil {
			lin = i
		} else {
			lin = c.op("add", c.op("mul", lin, int64(xs[d])), i)
		}
		block *= xs[d]
	}
	// the broadcast index shape is g's dims k .. k+len(gs)-len(xs)+m
	nb := len(gs) - (len(xs) - m)
	n := 1
	for _, s := range gs[k : k+nb] {
		n *= s
	}
	flat := append(append(append([]int{}, xs[:k]...), n), xs[k+m:]...)
	dst := append(append(append([]int{}, xs[:k]...), block), xs[k+m:]...)
	line := make([]int, len(flat))
	for i := range line {
		line[i] = 1
	}
	line[k] = n
	ix := c.op("expand", c.viewAs(c.op("expand", lin, dInts(gs[k:k+nb])), line), dInts(flat))
	g := c.viewAs(c.g, flat)
	zeros := c.op("full", dInts(dst), 0.0, c.meta(0).DType)
	c.acc(0, c.viewAs(c.op("scatter_add", zeros, int64(k), ix, g), xs))
}
