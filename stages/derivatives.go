package stages

import (
	"math"

	"gcdbg/ir"
)

// The derivative table: one entry per differentiable op, keyed by canonical
// name, with its formula in the style of PyTorch's
// tools/autograd/derivatives.yaml (grad is the incoming gradient, result
// the forward's output) and the function that emits it as graph nodes.
// Core ops come first; the non-core canonical ops after them (linear,
// softmax, layer_norm, ...) keep the joint graph working on a graph that
// has not been decomposed. Ops absent from the table have no derivative:
// comparisons, argmax, integer ops and the like produce no floating value,
// and a gradient reaching any other absent op is an error naming the node.

// Derivative is one row of the table.
type Derivative struct {
	Formula string
	Grad    func(c *dctx)
}

// dctx is what a formula sees: the forward node, its bound args (one per
// schema parameter), its incoming gradient g (or items, per tuple item).
type dctx struct {
	*jointBuilder
	n     *ir.Node
	a     []ir.Arg
	g     *ir.Node
	items []*ir.Node
}

func (c *dctx) t(i int) *ir.Node { x, _ := c.a[i].(*ir.Node); return x }

// needs reports whether arg i is a value whose gradient is wanted.
func (c *dctx) needs(i int) bool { x := c.t(i); return x != nil && c.req[x] }

func (c *dctx) acc(i int, g *ir.Node) {
	if c.needs(i) {
		c.accumulate(c.t(i), g)
	}
}

func (c *dctx) meta(i int) *ir.TensorMeta {
	if x := c.t(i); x != nil && x.Meta.Tensor != nil {
		return x.Meta.Tensor
	}
	c.fail("args[%d]: expected a tensor", i)
	return &ir.TensorMeta{}
}

func (c *dctx) sizes(i int) []int { return c.meta(i).Shape.Sizes() }

func (c *dctx) fail(format string, args ...any) {
	if c.err == nil {
		c.err = c.errf(c.n, "derivative of "+c.n.Target+": "+format, args...)
	}
}

// num resolves an int-valued arg: a constant or a node holding a Python int
// (symbolic sizes such as `getitem_1` from x.size()).
func (c *dctx) num(a ir.Arg) int {
	switch v := a.(type) {
	case int64:
		return int(v)
	case *ir.Node:
		if i, ok := v.Meta.Value.(int64); ok {
			return int(i)
		}
	case bool:
		if v {
			return 1
		}
		return 0
	}
	c.fail("expected an int, got %s", ir.FormatArg(a, func(n *ir.Node) string { return n.Name }))
	return 0
}

// dims resolves a dim list (None or [] = every dim), normalized for rank.
func (c *dctx) dims(a ir.Arg, rank int) []int {
	var raw []ir.Arg
	switch v := a.(type) {
	case nil:
	case ir.Tuple:
		raw = v
	case ir.List:
		raw = v
	default:
		raw = []ir.Arg{v}
	}
	if len(raw) == 0 {
		out := make([]int, rank)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, len(raw))
	for i, d := range raw {
		out[i] = c.dim(c.num(d), rank)
	}
	return out
}

func (c *dctx) dim(d, rank int) int {
	if rank == 0 {
		rank = 1
	}
	if d < 0 {
		d += rank
	}
	if d < 0 || d >= rank {
		c.fail("dim %d out of range for rank %d", d, rank)
		return 0
	}
	return d
}

func (c *dctx) op(name string, args ...ir.Arg) *ir.Node { return c.emit(name, args...) }

// restore undoes a reduction over dims: view g (without keepdim) to the
// kept shape, then expand to the input's shape.
func (c *dctx) restore(g *ir.Node, dims []int, keepdim bool, in []int) *ir.Node {
	kept := append([]int{}, in...)
	for _, d := range dims {
		if d < len(kept) {
			kept[d] = 1
		}
	}
	if !keepdim {
		g = c.viewAs(g, kept)
	}
	return c.op("expand", g, jointSizes(in))
}

func dInts(xs []int) ir.Tuple { return jointSizes(xs) }

func dIsNum(a ir.Arg) bool {
	switch a.(type) {
	case int64, float64, bool:
		return true
	}
	return false
}

func dNumVal(a ir.Arg) float64 {
	switch v := a.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	case bool:
		if v {
			return 1
		}
	}
	return 0
}

// dUnary is the table entry of a one-input op whose gradient is f(c).
func dUnary(formula string, f func(c *dctx) *ir.Node) Derivative {
	return Derivative{formula, func(c *dctx) {
		if c.needs(0) {
			c.acc(0, f(c))
		}
	}}
}

func dZero() Derivative { return Derivative{"self: zeros_like(grad)", func(c *dctx) {}} }

func dPass() Derivative { return dUnary("self: grad", func(c *dctx) *ir.Node { return c.g }) }

// viewBack is the derivative of an op that only reshapes.
func dViewBack(formula string) Derivative {
	return dUnary(formula, func(c *dctx) *ir.Node { return c.viewAs(c.g, c.sizes(0)) })
}

var derivatives map[string]Derivative

func init() {
	derivatives = map[string]Derivative{
		// Pointwise, unary.
		"neg":   dUnary("self: -grad", func(c *dctx) *ir.Node { return c.op("neg", c.g) }),
		"abs":   dUnary("self: grad * self.sgn()", func(c *dctx) *ir.Node { return c.op("mul", c.g, c.op("sign", c.a[0])) }),
		"exp":   dUnary("self: grad * result", func(c *dctx) *ir.Node { return c.op("mul", c.g, c.n) }),
		"log":   dUnary("self: grad / self", func(c *dctx) *ir.Node { return c.op("div", c.g, c.a[0]) }),
		"log1p": dUnary("self: grad / (self + 1)", func(c *dctx) *ir.Node { return c.op("div", c.g, c.op("add", c.a[0], 1.0)) }),
		"expm1": dUnary("self: grad * (result + 1)", func(c *dctx) *ir.Node { return c.op("mul", c.g, c.op("add", c.n, 1.0)) }),
		"sqrt":  dUnary("self: grad / (2 * result)", func(c *dctx) *ir.Node { return c.op("div", c.g, c.op("mul", c.n, 2.0)) }),
		"rsqrt": dUnary("self: -0.5 * grad * result.pow(3)", func(c *dctx) *ir.Node {
			return c.op("mul", c.g, c.op("mul", c.op("pow", c.n, 3.0), -0.5))
		}),
		"sin": dUnary("self: grad * self.cos()", func(c *dctx) *ir.Node { return c.op("mul", c.g, c.op("cos", c.a[0])) }),
		"cos": dUnary("self: grad * -self.sin()", func(c *dctx) *ir.Node { return c.op("mul", c.g, c.op("neg", c.op("sin", c.a[0]))) }),
		"tan": dUnary("self: grad * (1 + result.pow(2))", func(c *dctx) *ir.Node {
			return c.op("mul", c.g, c.op("add", c.op("mul", c.n, c.n), 1.0))
		}),
		"tanh": dUnary("self: grad * (1 - result.pow(2))", func(c *dctx) *ir.Node {
			return c.op("mul", c.g, c.op("sub", 1.0, c.op("mul", c.n, c.n)))
		}),
		"erf": dUnary("self: 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad", func(c *dctx) *ir.Node {
			e := c.op("exp", c.op("neg", c.op("mul", c.a[0], c.a[0])))
			return c.op("mul", c.g, c.op("mul", e, 2/math.Sqrt(math.Pi)))
		}),
		"sigmoid": dUnary("self: grad * result * (1 - result)", func(c *dctx) *ir.Node {
			return c.op("mul", c.g, c.op("mul", c.n, c.op("sub", 1.0, c.n)))
		}),
		"relu": dUnary("self: threshold_backward(grad, result, 0) = where(result > 0, grad, 0)", func(c *dctx) *ir.Node {
			return c.op("where", c.op("gt", c.n, 0.0), c.g, 0.0)
		}),
		"reciprocal": dUnary("self: -grad * (result * result)", func(c *dctx) *ir.Node {
			return c.op("mul", c.op("neg", c.g), c.op("mul", c.n, c.n))
		}),
		"sign": dZero(), "floor": dZero(), "ceil": dZero(), "round": dZero(), "trunc": dZero(),
		"to_dtype": dUnary("self: grad.to(self.dtype)", func(c *dctx) *ir.Node { return c.g }),
		"clone":    dPass(),
		"alias":    dPass(),

		// Pointwise, binary. Broadcasting is undone by accumulate.
		"add": {"self: grad, other: grad * alpha", func(c *dctx) {
			c.acc(0, c.g)
			if c.needs(1) {
				c.acc(1, c.scaled(c.g, c.a[2], false))
			}
		}},
		"sub": {"self: grad, other: -grad * alpha", func(c *dctx) {
			c.acc(0, c.g)
			if c.needs(1) {
				c.acc(1, c.scaled(c.g, c.a[2], true))
			}
		}},
		"mul": {"self: grad * other, other: grad * self", func(c *dctx) {
			if c.needs(0) {
				c.acc(0, c.op("mul", c.g, c.a[1]))
			}
			if c.needs(1) {
				c.acc(1, c.op("mul", c.g, c.a[0]))
			}
		}},
		"div": {"self: grad / other, other: -grad * self / (other * other); zero with a rounding_mode", func(c *dctx) {
			if c.a[2] != nil {
				return
			}
			if c.needs(0) {
				c.acc(0, c.op("div", c.g, c.a[1]))
			}
			if c.needs(1) {
				c.acc(1, c.op("div", c.op("mul", c.op("neg", c.g), c.a[0]), c.op("mul", c.a[1], c.a[1])))
			}
		}},
		"pow":     {"self: grad * exponent * self.pow(exponent - 1), exponent: grad * where(self == 0 & exponent >= 0, 0, result * self.log())", powGrad},
		"maximum": {"self: grad * ((self > other) + (self == other) / 2), other: grad * ((other > self) + (self == other) / 2)", func(c *dctx) { minMaxGrad(c, "gt") }},
		"minimum": {"self: grad * ((self < other) + (self == other) / 2), other: grad * ((other < self) + (self == other) / 2)", func(c *dctx) { minMaxGrad(c, "lt") }},
		"atan2": {"self: grad * other / (self^2 + other^2), other: grad * -self / (self^2 + other^2)", func(c *dctx) {
			den := c.op("add", c.op("mul", c.a[0], c.a[0]), c.op("mul", c.a[1], c.a[1]))
			if c.needs(0) {
				c.acc(0, c.op("mul", c.g, c.op("div", c.a[1], den)))
			}
			if c.needs(1) {
				c.acc(1, c.op("mul", c.g, c.op("div", c.op("neg", c.a[0]), den)))
			}
		}},
		"remainder": {"self: grad, other: -grad * self.div(other, rounding_mode='floor')", func(c *dctx) {
			c.acc(0, c.g)
			if c.needs(1) {
				c.acc(1, c.op("mul", c.op("neg", c.g), c.op("floor_divide", c.a[0], c.a[1])))
			}
		}},
		"where": {"condition: non_differentiable, self: where(condition, grad, 0), other: where(condition, 0, grad)", func(c *dctx) {
			if c.needs(1) {
				c.acc(1, c.op("where", c.a[0], c.g, 0.0))
			}
			if c.needs(2) {
				c.acc(2, c.op("where", c.a[0], 0.0, c.g))
			}
		}},

		// Reductions.
		"sum": dUnary("self: grad.expand(self.sizes()) (restoring reduced dims)", func(c *dctx) *ir.Node {
			in := c.sizes(0)
			keep := c.a[2] == true
			return c.restore(c.g, c.dims(c.a[1], len(in)), keep, in)
		}),
		"amax": {"self: scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), restore_reduced_dims(result, dim, keepdim) == self, dim)", amaxGrad},
		"amin": {"self: scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), restore_reduced_dims(result, dim, keepdim) == self, dim)", amaxGrad},
		"prod": dUnary("self: grad * the product of the other elements of its slice: result / self where the slice has no zero, the product of the nonzero elements at its one zero, 0 elsewhere (PyTorch's prod_backward)", func(c *dctx) *ir.Node {
			in := c.sizes(0)
			dims, keep := c.dims(c.a[1], len(in)), c.a[2] == true
			isZero := c.op("eq", c.a[0], 0.0)
			safe := c.op("where", isZero, 1.0, c.a[0])
			zeros := c.op("to_dtype", isZero, c.meta(0).DType)
			var nonzeroProd, zeroCount *ir.Node
			if c.a[1] == nil { // over every element
				nonzeroProd, zeroCount = c.op("prod", safe), c.op("sum", zeros)
			} else {
				nonzeroProd = c.op("prod", safe, c.a[1], false)
				zeroCount = c.op("sum", zeros, dInts(dims), false)
			}
			pn, nz := c.restore(nonzeroProd, dims, false, in), c.restore(zeroCount, dims, false, in)
			noZero := c.op("where", c.op("eq", nz, 0.0), c.op("div", pn, safe), 0.0)
			oneZero := c.op("where", c.op("logical_and", c.op("eq", nz, 1.0), isZero), pn, 0.0)
			return c.op("mul", c.restore(c.g, dims, keep, in), c.op("add", noZero, oneZero))
		}),

		// Matrix products, convolution, pooling.
		"mm": {"self: grad.mm(mat2.t()), mat2: self.t().mm(grad)", func(c *dctx) {
			if c.needs(0) {
				c.acc(0, c.op("mm", c.g, c.op("permute", c.a[1], dInts([]int{1, 0}))))
			}
			if c.needs(1) {
				c.acc(1, c.op("mm", c.op("permute", c.a[0], dInts([]int{1, 0})), c.g))
			}
		}},
		"bmm": {"self: grad.bmm(mat2.transpose(1, 2)), mat2: self.transpose(1, 2).bmm(grad)", func(c *dctx) {
			if c.needs(0) {
				c.acc(0, c.op("bmm", c.g, c.op("permute", c.a[1], dInts([]int{0, 2, 1}))))
			}
			if c.needs(1) {
				c.acc(1, c.op("bmm", c.op("permute", c.a[0], dInts([]int{0, 2, 1})), c.g))
			}
		}},
		"conv2d": {"input: conv2d_backward_input(grad, weight, ...), weight: conv2d_backward_weight(grad, input, ...), bias: grad.sum([0, 2, 3])", convGrad},
		"max_pool2d": dUnary("self: max_pool2d_backward(grad, self, kernel_size, stride, padding, dilation, ceil_mode)", func(c *dctx) *ir.Node {
			if c.a[6] == true {
				c.fail("return_indices=True has no derivative here")
			}
			return c.op("max_pool2d_backward", c.g, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4], c.a[5])
		}),
		"avg_pool2d": dUnary("self: avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)", func(c *dctx) *ir.Node {
			return c.op("avg_pool2d_backward", c.g, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4], c.a[5], c.a[6])
		}),
		"adaptive_avg_pool2d": dUnary("self: adaptive_avg_pool2d_backward(grad, self)", func(c *dctx) *ir.Node {
			return c.op("adaptive_avg_pool2d_backward", c.g, c.a[0])
		}),

		// Views.
		"view":    dViewBack("self: grad.view(self.sizes())"),
		"squeeze": dViewBack("self: grad.view(self.sizes())  (unsqueeze back)"),
		"unsqueeze": dUnary("self: grad.squeeze(dim)", func(c *dctx) *ir.Node {
			return c.op("squeeze", c.g, int64(c.dim(c.num(c.a[1]), len(c.sizes(0))+1)))
		}),
		"permute": dUnary("self: permute_backwards(grad, dims) = grad.permute(inverse(dims))", func(c *dctx) *ir.Node {
			rank := len(c.sizes(0))
			inv := make([]int, rank)
			for i, d := range c.dims(c.a[1], rank) {
				inv[d] = i
			}
			return c.op("permute", c.g, dInts(inv))
		}),
		"expand": dUnary("self: at::sum_to(grad, self.sizes())", func(c *dctx) *ir.Node { return c.g }),
		"slice": dUnary("self: slice_scatter(zeros(self.sizes()), grad, dim, start, end, step)", func(c *dctx) *ir.Node {
			return c.op("slice_scatter", c.zeros(c.meta(0)), c.g, c.a[1], c.a[2], c.a[3], c.a[4])
		}),
		"select": dUnary("self: select_scatter(zeros(self.sizes()), grad, dim, index)", func(c *dctx) *ir.Node {
			return c.op("select_scatter", c.zeros(c.meta(0)), c.g, c.a[1], c.a[2])
		}),
		"slice_scatter": {"self: slice_scatter(grad, zeros_like(src), dim, start, end, step), src: grad.slice(dim, start, end, step)", func(c *dctx) {
			if c.needs(0) {
				c.acc(0, c.op("slice_scatter", c.g, c.zeros(c.meta(1)), c.a[2], c.a[3], c.a[4], c.a[5]))
			}
			if c.needs(1) {
				c.acc(1, c.op("slice", c.g, c.a[2], c.a[3], c.a[4], c.a[5]))
			}
		}},
		"select_scatter": {"self: select_scatter(grad, zeros_like(src), dim, index), src: grad.select(dim, index)", func(c *dctx) {
			if c.needs(0) {
				c.acc(0, c.op("select_scatter", c.g, c.zeros(c.meta(1)), c.a[2], c.a[3]))
			}
			if c.needs(1) {
				c.acc(1, c.op("select", c.g, c.a[2], c.a[3]))
			}
		}},
		"index_put": {"self: accumulate ? grad : grad.index_put(indices, 0), values: grad[indices] (summed to values' shape)", func(c *dctx) {
			if c.needs(0) {
				if acc, _ := c.a[3].(bool); acc {
					c.acc(0, c.g)
				} else {
					c.acc(0, c.op("index_put", c.g, c.a[1], 0.0))
				}
			}
			if c.needs(2) {
				if g := indexPutMaskGrad(c); g != nil { // derivatives_scatter.go: a bool mask
					c.acc(2, g)
				} else {
					c.acc(2, c.op("getitem", c.g, c.a[1]))
				}
			}
		}},
		"scatter_add": {"self: grad, index: non_differentiable, src: grad.gather(dim, index)", func(c *dctx) {
			c.acc(0, c.g)
			if c.needs(3) {
				if ir.Lookup("aten.gather") == nil {
					c.fail("the gradient of src needs aten.gather, which is not registered")
					return
				}
				c.acc(3, c.op("gather", c.g, c.a[1], c.a[2]))
			}
		}},
		"gather": {"self: zeros.scatter_add(dim, index, grad), index: non_differentiable", func(c *dctx) {
			if c.needs(0) {
				c.acc(0, c.op("scatter_add", c.zeros(c.meta(0)), c.a[1], c.a[2], c.g))
			}
		}},
		"index_select": {"self: zeros.index_add(dim, index, grad) = zeros.scatter_add(dim, index expanded to grad, grad)", func(c *dctx) {
			if !c.needs(0) {
				return
			}
			xs, gs := c.sizes(0), c.n.Meta.Tensor.Shape.Sizes()
			d := c.dim(c.num(c.a[1]), len(xs))
			if len(xs) == 0 {
				// a 0-d self: the result is self's value; PyTorch's backward
				// (index_add into a 0-d zeros) takes only a one-element index
				if k := numelOf(c.meta(2).Shape.Sizes()); k != 1 {
					c.fail("index_select of a 0-dim self with an index of %d elements: PyTorch's backward rejects it (index_add: \"Dimension specified as 0 but tensor has no dimensions\")", k)
					return
				}
				c.acc(0, c.g)
				return
			}
			line := make([]int, len(xs)) // the index laid along dim d
			for i := range line {
				line[i] = 1
			}
			line[d] = gs[d]
			idx := c.op("expand", c.viewAs(c.t(2), line), dInts(gs))
			c.acc(0, c.op("scatter_add", c.zeros(c.meta(0)), int64(d), idx, c.g))
		}},
		"index":   {"self: index_put(zeros(self.sizes()), indices, grad, accumulate=True) (one index tensor: zeros.scatter_add)", indexGrad},
		"cat":     {"tensors: cat_tensors_backward(grad, sizes, dim) = grad.slice(dim, offset_i, offset_i + size_i)", catGrad},
		"getitem": {"self: tuple item i gets grad; tensor x[index] (basic indexing): index_put(zeros(self.sizes()), index, grad)", getitemGrad},
		"sort":    {"self: value_selecting_reduction_backward(grad, dim, indices, self.sizes()) = zeros.scatter_add(dim, indices, grad)", func(c *dctx) { sortGrad(c, 1) }},
		"topk":    {"self: value_selecting_reduction_backward(grad, dim, indices, self.sizes()) = zeros.scatter_add(dim, indices, grad)", func(c *dctx) { sortGrad(c, 2) }},
	}
	addNonCore()
}

// scaled is grad * alpha (negated for sub), skipping the multiply by 1.
func (c *dctx) scaled(g *ir.Node, alpha ir.Arg, negate bool) *ir.Node {
	if negate {
		g = c.op("neg", g)
	}
	if alpha == nil || dNumVal(alpha) == 1 {
		return g
	}
	return c.op("mul", g, alpha)
}

func powGrad(c *dctx) {
	self, exp := c.a[0], c.a[1]
	if c.needs(0) {
		if dIsNum(exp) {
			if e := dNumVal(exp); e != 0 {
				c.acc(0, c.op("mul", c.g, c.op("mul", c.op("pow", self, e-1), e)))
			}
		} else {
			c.acc(0, c.op("mul", c.g, c.op("mul", c.op("pow", self, c.op("sub", exp, 1.0)), exp)))
		}
	}
	if c.needs(1) {
		var d *ir.Node
		if dIsNum(self) {
			d = c.op("mul", c.n, math.Log(dNumVal(self)))
		} else {
			zero := c.op("logical_and", c.op("eq", self, 0.0), c.op("ge", exp, 0.0))
			d = c.op("where", zero, 0.0, c.op("mul", c.n, c.op("log", self)))
		}
		c.acc(1, c.op("mul", c.g, d))
	}
}

// minMaxGrad: the winner gets grad, ties split it evenly (cmp is "gt" for
// maximum, "lt" for minimum).
func minMaxGrad(c *dctx, cmp string) {
	x, y := c.a[0], c.a[1]
	half := c.op("div", c.g, 2.0)
	eq := c.op("eq", x, y)
	if c.needs(0) {
		c.acc(0, c.op("where", c.op(cmp, x, y), c.g, c.op("where", eq, half, 0.0)))
	}
	if c.needs(1) {
		c.acc(1, c.op("where", c.op(cmp, y, x), c.g, c.op("where", eq, half, 0.0)))
	}
}

func amaxGrad(c *dctx) {
	if !c.needs(0) {
		return
	}
	in := c.sizes(0)
	if len(in) == 0 {
		// A 0-d input (dim 0 or -1 names the scalar itself): the result is
		// the input, the mask is 1 (0 for NaN), and PyTorch's grad/count*mask
		// reduces to grad/mask*mask: grad, or NaN where the input is NaN.
		mask := c.op("to_dtype", c.op("eq", c.a[0], c.n), c.meta(0).DType)
		c.acc(0, c.op("mul", c.op("div", c.g, mask), mask))
		return
	}
	dims, keep := c.dims(c.a[1], len(in)), c.a[2] == true
	kept := append([]int{}, in...)
	for _, d := range dims {
		kept[d] = 1
	}
	r, g := c.n, c.g
	if !keep {
		r, g = c.viewAs(r, kept), c.viewAs(g, kept)
	}
	mask := c.op("to_dtype", c.op("eq", c.a[0], r), c.meta(0).DType)
	count := c.op("sum", mask, dInts(dims), true)
	c.acc(0, c.op("mul", c.op("div", g, count), mask))
}

func convGrad(c *dctx) {
	pad := c.a[4]
	if mode, ok := pad.(string); ok {
		switch mode {
		case "valid":
			pad = int64(0)
		case "same":
			ws := c.sizes(1)
			dil := c.a[5]
			p := ir.Tuple{}
			for i := 0; i < 2; i++ {
				d := 1
				if t, ok := dil.(ir.Tuple); ok && len(t) == 2 {
					d = c.num(t[i])
				} else {
					d = c.num(dil)
				}
				total := d * (ws[2+i] - 1)
				if total%2 != 0 { // the decomposed stage pads explicitly (decomp_convpad.go)
					c.fail("padding='same' with an even kernel pads asymmetrically; its backward is not supported")
				}
				p = append(p, int64(total/2))
			}
			pad = p
		default:
			c.fail("padding=%q", mode)
		}
	}
	if c.needs(0) {
		c.acc(0, c.op("conv2d_backward_input", c.g, c.a[1], dInts(c.sizes(0)), c.a[3], pad, c.a[5], c.a[6]))
	}
	if c.needs(1) {
		c.acc(1, c.op("conv2d_backward_weight", c.g, c.a[0], dInts(c.sizes(1)), c.a[3], pad, c.a[5], c.a[6]))
	}
	if c.needs(2) {
		dims := dInts([]int{0, 2, 3})
		if len(c.sizes(0)) == 3 {
			dims = dInts([]int{1, 2})
		}
		c.acc(2, c.op("sum", c.g, dims))
	}
}

func catGrad(c *dctx) {
	var ts []ir.Arg
	switch v := c.a[0].(type) {
	case ir.Tuple:
		ts = v
	case ir.List:
		ts = v
	}
	rank := len(c.n.Meta.Tensor.Shape)
	d := c.dim(c.num(c.a[1]), rank)
	off := 0
	for _, a := range ts {
		x, _ := a.(*ir.Node)
		if x == nil || x.Meta.Tensor == nil {
			continue
		}
		s := x.Meta.Tensor.Shape.Sizes()
		if len(s) == 1 && s[0] == 0 && rank != 1 { // legacy empty tensors are skipped by cat
			continue
		}
		if c.req[x] {
			c.accumulate(x, c.op("slice", c.g, int64(d), int64(off), int64(off+s[d])))
		}
		off += s[d]
	}
}

func getitemGrad(c *dctx) {
	x := c.t(0)
	if x == nil {
		return
	}
	if x.Meta.Tensor == nil { // an item of a tuple (split, sort, ...)
		c.accumulateItem(x, c.num(c.a[1]), c.g)
		return
	}
	if !c.needs(0) {
		return
	}
	parts := []ir.Arg{c.a[1]}
	if t, ok := c.a[1].(ir.Tuple); ok {
		parts = t
	}
	for _, p := range parts {
		switch v := p.(type) {
		case *ir.Node:
			if v.Meta.Tensor != nil {
				c.fail("advanced indexing (a tensor index) has no derivative here; index_put would drop repeated indices")
				return
			}
		case ir.List:
			c.fail("advanced indexing (a list index) has no derivative here; index_put would drop repeated indices")
			return
		}
	}
	c.acc(0, c.op("index_put", c.zeros(x.Meta.Tensor), c.a[1], c.g))
}

// sortGrad scatters the values' gradient back through the indices; dimArg
// is the position of the dim argument.
func sortGrad(c *dctx, dimArg int) {
	if !c.needs(0) || len(c.items) == 0 || c.items[0] == nil {
		return
	}
	idx := c.op("getitem", c.n, int64(1))
	c.acc(0, c.op("scatter_add", c.zeros(c.meta(0)), c.a[dimArg], idx, c.items[0]))
}

// addNonCore adds the derivatives of the common non-core canonical ops, so
// the joint graph works on a graph that has not been decomposed. Once the
// decomposition stage lowers them they go unused.
func addNonCore() {
	for k, v := range map[string]Derivative{
		"contiguous": dPass(),
		"type_as":    dUnary("self: grad.to(self.dtype)", func(c *dctx) *ir.Node { return c.g }),
		"reshape":    dViewBack("self: grad.reshape(self.sizes())"),
		"flatten":    dViewBack("self: grad.view(self.sizes())"),
		"view_as":    dViewBack("self: grad.view(self.sizes())"),
		"reshape_as": dViewBack("self: grad.reshape(self.sizes())"),
		"expand_as":  dUnary("self: at::sum_to(grad, self.sizes())", func(c *dctx) *ir.Node { return c.g }),
		"transpose": dUnary("self: grad.transpose(dim0, dim1)", func(c *dctx) *ir.Node {
			rank := len(c.sizes(0))
			perm := make([]int, rank)
			for i := range perm {
				perm[i] = i
			}
			d0, d1 := c.dim(c.num(c.a[1]), rank), c.dim(c.num(c.a[2]), rank)
			perm[d0], perm[d1] = perm[d1], perm[d0]
			return c.op("permute", c.g, dInts(perm))
		}),
		"t":       dUnary("self: grad.t()", dReversePerm),
		"numpy_T": dUnary("self: grad.permute(reversed dims)", dReversePerm),
		"rsub": {"self: -grad * alpha, other: grad", func(c *dctx) {
			if c.needs(0) {
				c.acc(0, c.scaled(c.g, c.a[2], true))
			}
			c.acc(1, c.g)
		}},
		"square": dUnary("self: 2 * self * grad", func(c *dctx) *ir.Node { return c.op("mul", c.g, c.op("mul", c.a[0], 2.0)) }),
		"silu": dUnary("self: grad * sigmoid(self) * (1 + self * (1 - sigmoid(self)))", func(c *dctx) *ir.Node {
			s := c.op("sigmoid", c.a[0])
			return c.op("mul", c.g, c.op("mul", s, c.op("add", c.op("mul", c.a[0], c.op("sub", 1.0, s)), 1.0)))
		}),
		"gelu": dUnary("self: gelu_backward(grad, self, approximate)", geluGrad),
		"clamp": dUnary("self: where((self >= min).logical_and(self <= max), grad, 0)", func(c *dctx) *ir.Node {
			var cond *ir.Node
			if c.a[1] != nil {
				cond = c.op("ge", c.a[0], c.a[1])
			}
			if c.a[2] != nil {
				le := c.op("le", c.a[0], c.a[2])
				if cond == nil {
					cond = le
				} else {
					cond = c.op("logical_and", cond, le)
				}
			}
			return c.op("where", cond, c.g, 0.0)
		}),
		"clamp_min": dUnary("self: where(self >= min, grad, at::scalar_tensor(0.))", func(c *dctx) *ir.Node {
			return c.op("where", c.op("ge", c.a[0], c.a[1]), c.g, 0.0)
		}),
		"clamp_max": dUnary("self: where(self <= max, grad, at::scalar_tensor(0.))", func(c *dctx) *ir.Node {
			return c.op("where", c.op("le", c.a[0], c.a[1]), c.g, 0.0)
		}),
		"masked_fill": {"self: grad.masked_fill(mask, 0), mask: non_differentiable, value: grad.masked_fill(~mask, 0).sum()", func(c *dctx) {
			if c.needs(0) {
				c.acc(0, c.op("where", c.a[1], 0.0, c.g))
			}
			if c.needs(2) {
				c.acc(2, c.op("where", c.a[1], c.g, 0.0))
			}
		}},
		"dropout": dUnary("self: grad (eval mode or p = 0)", func(c *dctx) *ir.Node {
			if c.a[2] == true && dNumVal(c.a[1]) != 0 {
				c.fail("dropout in training mode draws a random mask; its backward is not supported")
			}
			return c.g
		}),
		"mean": dUnary("self: grad.expand(self.sizes()) / self.numel() * result.numel()", func(c *dctx) *ir.Node {
			in := c.sizes(0)
			dims, keep := c.dims(c.a[1], len(in)), c.a[2] == true
			n := 1
			for _, d := range dims {
				n *= in[d]
			}
			return c.op("div", c.restore(c.g, dims, keep, in), float64(n))
		}),
		"softmax": dUnary("self: _softmax_backward_data(grad, result, dim) = result * (grad - (grad * result).sum(dim, true))", func(c *dctx) *ir.Node {
			d := dInts([]int{c.dim(c.num(c.a[1]), len(c.sizes(0)))})
			s := c.op("sum", c.op("mul", c.g, c.n), d, true)
			return c.op("mul", c.n, c.op("sub", c.g, s))
		}),
		"log_softmax": dUnary("self: _log_softmax_backward_data(grad, result, dim) = grad - result.exp() * grad.sum(dim, true)", func(c *dctx) *ir.Node {
			d := dInts([]int{c.dim(c.num(c.a[1]), len(c.sizes(0)))})
			return c.op("sub", c.g, c.op("mul", c.op("exp", c.n), c.op("sum", c.g, d, true)))
		}),
		"layer_norm": {"input, weight, bias: native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight, bias)", layerNormGrad},
		"linear":     {"input: grad.mm(weight) (viewed), weight: grad.t().mm(input) (flattened), bias: grad.sum_to(bias)", linearGrad},
		"matmul":     {"self: grad.matmul(other.mT) (summed to self), other: self.mT.matmul(grad) (summed to other)", matmulGrad},
		"split":      {"self: split_backward(grads, split_size, dim) = cat(grads or zeros, dim)", splitGrad},
		"chunk":      {"self: split_backward(grads, chunk sizes, dim) = cat(grads or zeros, dim)", splitGrad},
		"stack": {"tensors: unbind(grad, dim)", func(c *dctx) {
			ts, _ := c.a[0].(ir.Tuple)
			if l, ok := c.a[0].(ir.List); ok {
				ts = ir.Tuple(l)
			}
			d := int64(c.dim(c.num(c.a[1]), len(c.n.Meta.Tensor.Shape)))
			for i, a := range ts {
				if x, ok := a.(*ir.Node); ok && c.req[x] {
					c.accumulate(x, c.op("select", c.g, d, int64(i)))
				}
			}
		}},
		"embedding": {"weight: embedding_dense_backward(grad, indices, num_weights, padding_idx) = zeros.scatter_add(0, indices, grad)", embeddingGrad},
	} {
		derivatives[k] = v
	}
}

func dReversePerm(c *dctx) *ir.Node {
	rank := len(c.sizes(0))
	perm := make([]int, rank)
	for i := range perm {
		perm[i] = rank - 1 - i
	}
	return c.op("permute", c.g, dInts(perm))
}

func geluGrad(c *dctx) *ir.Node {
	x := c.a[0]
	if c.a[1] == "tanh" {
		const k, a = 0.7978845608028654, 0.044715 // sqrt(2/pi)
		x2 := c.op("mul", x, x)
		inner := c.op("mul", c.op("add", x, c.op("mul", c.op("mul", x2, x), a)), k)
		t := c.op("tanh", inner)
		left := c.op("mul", c.op("add", t, 1.0), 0.5)
		dinner := c.op("mul", c.op("add", c.op("mul", x2, 3*a), 1.0), k)
		right := c.op("mul", c.op("mul", c.op("mul", x, 0.5), c.op("sub", 1.0, c.op("mul", t, t))), dinner)
		return c.op("mul", c.g, c.op("add", left, right))
	}
	cdf := c.op("mul", c.op("add", c.op("erf", c.op("mul", x, 1/math.Sqrt2)), 1.0), 0.5)
	pdf := c.op("mul", c.op("exp", c.op("mul", c.op("mul", x, x), -0.5)), 1/math.Sqrt(2*math.Pi))
	return c.op("mul", c.g, c.op("add", cdf, c.op("mul", x, pdf)))
}

// layerNormGrad recomputes mean and rstd from the input (the forward's
// layer_norm keeps them internal) and applies native_layer_norm_backward.
func layerNormGrad(c *dctx) {
	if !c.needs(0) && !c.needs(2) && !c.needs(3) {
		return
	}
	in := c.sizes(0)
	k := 1 // normalized_shape: an int or a list of the trailing sizes
	switch ns := c.a[1].(type) {
	case ir.Tuple:
		k = len(ns)
	case ir.List:
		k = len(ns)
	}
	if k > len(in) {
		c.fail("normalized_shape has %d dims, input only %d", k, len(in))
		return
	}
	var dims []int
	n := 1
	for i := len(in) - k; i < len(in); i++ {
		dims = append(dims, i)
		n *= in[i]
	}
	dt := dInts(dims)
	if c.needs(3) {
		c.acc(3, c.g)
	}
	if !c.needs(0) && !c.needs(2) {
		return
	}
	x := c.a[0]
	mean := c.op("div", c.op("sum", x, dt, true), float64(n))
	xc := c.op("sub", x, mean)
	variance := c.op("div", c.op("sum", c.op("mul", xc, xc), dt, true), float64(n))
	rstd := c.op("rsqrt", c.op("add", variance, c.a[4]))
	xhat := c.op("mul", xc, rstd)
	if c.needs(2) {
		c.acc(2, c.op("mul", c.g, xhat))
	}
	if c.needs(0) {
		gx := c.g
		if c.a[2] != nil {
			gx = c.op("mul", c.g, c.a[2])
		}
		m1 := c.op("div", c.op("sum", gx, dt, true), float64(n))
		m2 := c.op("div", c.op("sum", c.op("mul", gx, xhat), dt, true), float64(n))
		c.acc(0, c.op("mul", rstd, c.op("sub", c.op("sub", gx, m1), c.op("mul", xhat, m2))))
	}
}

func linearGrad(c *dctx) {
	ws := c.sizes(1)
	if len(ws) != 2 {
		c.fail("weight must be 2-D, got %v", ws)
		return
	}
	out, in := ws[0], ws[1]
	rows := 1
	for _, s := range c.sizes(0) {
		rows *= s
	}
	rows /= max(in, 1)
	g2 := c.viewAs(c.g, []int{rows, out})
	if c.needs(0) {
		c.acc(0, c.viewAs(c.op("mm", g2, c.a[1]), c.sizes(0)))
	}
	if c.needs(1) {
		x2 := c.viewAs(c.t(0), []int{rows, in})
		c.acc(1, c.op("mm", c.op("permute", g2, dInts([]int{1, 0})), x2))
	}
	c.acc(2, c.g)
}

func dMT(c *dctx, x ir.Arg, rank int) *ir.Node {
	perm := make([]int, rank)
	for i := range perm {
		perm[i] = i
	}
	perm[rank-2], perm[rank-1] = rank-1, rank-2
	return c.op("permute", x, dInts(perm))
}

func matmulGrad(c *dctx) {
	xs, ys := c.sizes(0), c.sizes(1)
	if len(xs) == 1 && len(ys) == 1 { // dot product
		if c.needs(0) {
			c.acc(0, c.op("mul", c.g, c.a[1]))
		}
		if c.needs(1) {
			c.acc(1, c.op("mul", c.g, c.a[0]))
		}
		return
	}
	x, y, g := c.a[0], c.a[1], c.g
	if len(xs) == 1 { // [k] is [1, k]; the result lost that 1
		x, g = c.op("unsqueeze", x, int64(0)), c.op("unsqueeze", g, int64(-2))
		xs = []int{1, xs[0]}
	}
	if len(ys) == 1 { // [k] is [k, 1]
		y, g = c.op("unsqueeze", y, int64(-1)), c.op("unsqueeze", g, int64(-1))
		ys = []int{ys[0], 1}
	}
	// A 1-D operand's gradient drops the unit dim it was given before it is
	// summed over the broadcast batch dims.
	if c.needs(0) {
		gx := c.op("matmul", g, dMT(c, y, len(ys)))
		if len(c.sizes(0)) == 1 {
			gx = c.op("squeeze", gx, int64(-2))
		}
		c.acc(0, gx)
	}
	if c.needs(1) {
		gy := c.op("matmul", dMT(c, x, len(xs)), g)
		if len(c.sizes(1)) == 1 {
			gy = c.op("squeeze", gy, int64(-1))
		}
		c.acc(1, gy)
	}
}

func splitGrad(c *dctx) {
	if !c.needs(0) {
		return
	}
	d := int64(c.dim(c.num(c.a[2]), len(c.sizes(0))))
	parts := make(ir.List, len(c.n.Meta.Items))
	for i, m := range c.n.Meta.Items {
		if i < len(c.items) && c.items[i] != nil {
			parts[i] = c.items[i]
		} else {
			parts[i] = c.zeros(m)
		}
	}
	c.acc(0, c.op("cat", parts, d))
}

func embeddingGrad(c *dctx) {
	if !c.needs(1) {
		return
	}
	wm := c.meta(1)
	dim := wm.Shape[1].Size
	n := 1
	for _, s := range c.sizes(0) {
		n *= s
	}
	idx := c.viewAs(c.t(0), []int{n, 1})
	g := c.viewAs(c.g, []int{n, dim})
	if c.a[2] != nil {
		g = c.op("where", c.op("eq", idx, c.a[2]), 0.0, g)
	}
	c.acc(1, c.op("scatter_add", c.zeros(wm), int64(0), c.op("expand", idx, dInts([]int{n, dim})), g))
}

// indexGrad handles x[..., idx, ...] with one integer index tensor (the
// other dims None): the gradient is index_select's, repeated indices
// accumulating through scatter_add, a negative index wrapped as PyTorch
// does. Several adjacent index tensors are multiIndexGrad's; other
// advanced-indexing forms are an error.
func indexGrad(c *dctx) {
	if !c.needs(0) {
		return
	}
	var parts []ir.Arg
	switch v := c.a[1].(type) {
	case ir.Tuple:
		parts = v
	case ir.List:
		parts = v
	}
	k := -1
	var ks []int
	for i, p := range parts {
		if p == nil {
			continue
		}
		x, ok := p.(*ir.Node)
		if !ok || x.Meta.Tensor == nil || !x.Meta.Tensor.DType.IsInt() {
			c.fail("only integer index tensors have a derivative here (got %s)", ir.FormatArg(c.a[1], func(n *ir.Node) string { return n.Name }))
			return
		}
		k, ks = i, append(ks, i)
	}
	if len(ks) > 1 {
		multiIndexGrad(c, parts, ks) // derivatives_index.go: Z[:, li, lj]
		return
	}
	if k < 0 {
		c.acc(0, c.g)
		return
	}
	xs, idx := c.sizes(0), c.t(1)
	if tup, ok := c.a[1].(ir.Tuple); ok {
		idx = tup[k].(*ir.Node)
	} else {
		idx = c.a[1].(ir.List)[k].(*ir.Node)
	}
	n := 1
	for _, s := range idx.Meta.Tensor.Shape.Sizes() {
		n *= s
	}
	idx = c.op("remainder", idx, int64(xs[k])) // PyTorch wraps a negative index
	flat := append(append(append([]int{}, xs[:k]...), n), xs[k+1:]...)
	g := c.viewAs(c.g, flat)
	line := make([]int, len(xs))
	for i := range line {
		line[i] = 1
	}
	line[k] = n
	ix := c.op("expand", c.viewAs(idx, line), dInts(flat))
	c.acc(0, c.op("scatter_add", c.zeros(c.meta(0)), int64(k), ix, g))
}
