package stages

import (
	"slices"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Derivatives of scatter and scatter_reduce, as PyTorch's derivatives.yaml
// and FunctionsManual.cpp's scatter_reduce_backward define them (1.13):
// every formula is core ops (gather, scatter, scatter_add, scatter_reduce,
// eq, where, div, mul).
func init() {
	if derivatives == nil {
		panic("stages: derivatives_scatter.go initialised before derivatives.go")
	}
	derivatives["scatter"] = Derivative{"self: grad.scatter(dim, index, 0), index: non_differentiable, src: grad.gather(dim, index); reduce=: not implemented (as in PyTorch)", scatterGrad}
	derivatives["scatter_reduce"] = Derivative{"self, src: scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result)", scatterReduceGrad}
}

func scatterGrad(c *dctx) {
	if len(c.a) > 5 && c.a[5] != nil {
		c.fail("derivative for aten::scatter with reduce= is not implemented (as in PyTorch)")
		return
	}
	if c.needs(0) {
		c.acc(0, c.op("scatter", c.g, c.a[1], c.a[2], 0.0))
	}
	if c.needs(3) {
		c.acc(3, c.srcGrad(c.op("gather", c.g, c.a[1], c.a[2])))
	}
}

// srcGrad checks that a gradient gathered through index has src's shape:
// PyTorch's autograd refuses a src larger than index ("returned an invalid
// gradient").
func (c *dctx) srcGrad(g *ir.Node) *ir.Node {
	if got, want := g.Meta.Tensor.Shape.Sizes(), c.sizes(3); !slices.Equal(got, want) {
		c.fail("the gradient of src has index's shape %v but src is %v (PyTorch refuses it too: the function returned an invalid gradient)", got, want)
	}
	return g
}

func scatterReduceGrad(c *dctx) {
	red, _ := c.a[4].(string)
	inc := true
	if b, ok := c.a[5].(bool); ok {
		inc = b
	}
	if !c.needs(0) && !c.needs(3) {
		return
	}
	dim, idx, self, src := c.a[1], c.a[2], c.t(0), c.t(3)
	dt := c.n.Meta.Tensor.DType
	gather := func(x *ir.Node) *ir.Node { return c.op("gather", x, dim, idx) }
	eqf := func(a, b ir.Arg) *ir.Node { return c.op("to_dtype", c.op("eq", a, b), dt) }
	var gSelf, gSrc func() *ir.Node
	switch red {
	case "sum":
		gSelf = func() *ir.Node { return c.g }
		gSrc = func() *ir.Node { return gather(c.g) }
	case "prod":
		// Exclusive products where self or src holds a zero: divide the
		// product by a nonzero factor only, recompute it without a single zero.
		gSelf = func() *ir.Node {
			masked := c.op("where", c.op("eq", self, 0.0), 1.0, self)
			r := c.op("scatter_reduce", masked, dim, idx, src, red, inc)
			return c.op("div", c.op("mul", c.g, r), masked)
		}
		gSrc = func() *ir.Node {
			zero := c.op("eq", src, 0.0)
			nz := gather(c.op("scatter_add", c.zeros(c.meta(0)), dim, idx, c.op("to_dtype", zero, dt)))
			single := c.op("logical_and", zero, c.op("eq", nz, 1.0))
			mres := c.op("scatter_reduce", self, dim, idx, c.op("where", single, 1.0, src), red, inc)
			return c.op("where", single, gather(c.op("mul", c.g, mres)),
				c.op("div", gather(c.op("mul", c.g, c.n)), c.op("where", zero, 1.0, src)))
		}
	case "mean":
		var n *ir.Node
		count := func() *ir.Node {
			if n == nil {
				start := c.zeros(c.n.Meta.Tensor)
				if inc {
					start = c.op("add", start, 1.0)
				}
				n = c.op("scatter_add", start, dim, idx, c.op("add", c.zeros(c.meta(3)), 1.0))
				n = c.op("where", c.op("eq", n, 0.0), 1.0, n)
			}
			return n
		}
		gSelf = func() *ir.Node { return c.op("div", c.g, count()) }
		gSrc = func() *ir.Node { return c.op("div", gather(c.g), gather(count())) }
	case "amax", "amin":
		// The gradient is shared evenly among the values equal to the result.
		var dist *ir.Node
		distributed := func() *ir.Node {
			if dist == nil {
				n := c.op("scatter_add", eqf(self, c.n), dim, idx, eqf(src, gather(c.n)))
				dist = c.op("div", c.g, n)
			}
			return dist
		}
		gSelf = func() *ir.Node { return c.op("mul", c.op("eq", self, c.n), distributed()) }
		gSrc = func() *ir.Node { return c.op("mul", c.op("eq", src, gather(c.n)), gather(distributed())) }
	default:
		c.fail("reduce %q has no derivative", red)
		return
	}
	if c.needs(0) {
		g := gSelf()
		if !inc {
			g = c.op("scatter", g, dim, idx, 0.0)
		}
		c.acc(0, g)
	}
	if c.needs(3) {
		c.acc(3, c.srcGrad(gSrc()))
	}
}

// indexPutMaskGrad is index_put's values gradient, grad[mask], when the
// index is one bool mask over self's leading dims: grad[mask]'s length is
// the number of true elements, known only at run time, so it is built with
// static shapes instead. The k-th true position's gradient goes to row k of
// values (a scatter_add into len(values)+1 rows, the last one collecting
// the false positions, dropped), or all of them are summed when values
// broadcasts along that dim. nil when the index is anything else.
func indexPutMaskGrad(c *dctx) *ir.Node {
	var items []ir.Arg
	switch v := c.a[1].(type) {
	case ir.Tuple:
		items = v
	case ir.List:
		items = v
	default:
		items = []ir.Arg{v}
	}
	if len(items) != 1 {
		return nil
	}
	mask, ok := items[0].(*ir.Node)
	if !ok || mask.Meta.Tensor == nil || mask.Meta.Tensor.DType != tensor.Bool {
		return nil
	}
	xs, ms, vs := c.sizes(0), mask.Meta.Tensor.Shape.Sizes(), c.sizes(2)
	if len(ms) == 0 || len(ms) > len(xs) || !slices.Equal(ms, xs[:len(ms)]) {
		return nil
	}
	rest := xs[len(ms):]
	p := tensor.Numel(ms)
	gf := c.viewAs(c.g, append([]int{p}, rest...))
	mf := c.viewAs(mask, []int{p})
	ones := make([]int, len(rest))
	for i := range ones {
		ones[i] = 1
	}
	line := append([]int{p}, ones...) // the mask laid along dim 0
	if len(vs) < 1+len(rest) || vs[len(vs)-1-len(rest)] == 1 {
		zero := c.zeros(&ir.TensorMeta{DType: c.g.Meta.Tensor.DType, Shape: ir.ShapeOf(nil)})
		return c.op("sum", c.op("where", c.viewAs(mf, line), gf, zero), dInts([]int{0}), true)
	}
	k := vs[len(vs)-1-len(rest)]
	pos := c.op("sub", c.op("cumsum", c.op("to_dtype", mf, tensor.Int64), int64(0), nil), int64(1))
	pos = c.op("where", mf, pos, c.op("full", ir.Tuple{}, int64(k), tensor.Int64))
	idx := c.op("expand", c.viewAs(pos, line), dInts(append([]int{p}, rest...)))
	rows := c.zeros(&ir.TensorMeta{DType: c.g.Meta.Tensor.DType, Shape: ir.ShapeOf(append([]int{k + 1}, rest...))})
	return c.op("slice", c.op("scatter_add", rows, int64(0), idx, gf), int64(0), int64(0), int64(k))
}
