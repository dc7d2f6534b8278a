package stages

import (
	"gcdbg/ir"
)

// Derivatives of the training-mode ops, for a joint graph built on a graph
// that is not decomposed (the decomposed graph differentiates their core
// ops): batch_norm in eval and training mode, batch_norm_functional (the
// running stats get no gradient: PyTorch updates them under no_grad),
// dropout from a keep mask, and cross_entropy with class-index targets.
func init() {
	if derivatives == nil {
		panic("stages: derivatives_train.go initialised before derivatives.go")
	}
	for k, v := range map[string]Derivative{
		"batch_norm": {"input, weight, bias: batch_norm_backward(grad, input, weight, running_mean, running_var, training, eps) (training: batch statistics)",
			func(c *dctx) { batchNormGrad(c, c.g, c.a[5] == true, 7) }},
		"batch_norm_functional": {"input, weight, bias: native_batch_norm_backward(grad[0], input, weight, save_mean, save_invstd, train=True, eps); running stats: not differentiable",
			func(c *dctx) {
				if len(c.items) > 0 && c.items[0] != nil {
					batchNormGrad(c, c.items[0], true, 6)
				}
			}},
		"dropout_masked": dUnary("self: grad * mask * (1 / (1 - p))", func(c *dctx) *ir.Node {
			d := dropoutScale(c.meta(0).DType, dNumVal(c.a[2]))
			return c.op("mul", c.g, c.op("mul", c.op("to_dtype", c.a[1], c.meta(0).DType), d))
		}),
		"feature_dropout": dUnary("self: grad (eval mode or p = 0; in training the normalized stage replaced it by dropout_masked)", func(c *dctx) *ir.Node {
			if c.a[2] == true && dNumVal(c.a[1]) != 0 {
				c.fail("feature dropout in training mode should have been replaced by its draw in the normalized stage")
			}
			return c.g
		}),
		"cross_entropy": {"self: (softmax(self, 1) - ((1 - ls) * one_hot(target) + ls / C)) * (target != ignore_index) * grad (/ count of such targets for mean)", crossEntropyGrad},
	} {
		derivatives[k] = v
	}
}

// batchNormGrad: g is the output's gradient; eps is at argument ei.
// Arguments: (input, running_mean, running_var, weight, bias, ...).
func batchNormGrad(c *dctx, g *ir.Node, training bool, ei int) {
	if g == nil || (!c.needs(0) && !c.needs(3) && !c.needs(4)) {
		return
	}
	in := c.sizes(0)
	if len(in) < 2 {
		c.fail("input must have at least 2 dims, got %v", in)
		return
	}
	C := in[1]
	pshape := make([]int, len(in))
	for i := range pshape {
		pshape[i] = 1
	}
	pshape[1] = C
	dims := []int{0}
	for d := 2; d < len(in); d++ {
		dims = append(dims, d)
	}
	n := float64(1)
	for _, d := range dims {
		n *= float64(in[d])
	}
	dt := dInts(dims)
	x := c.a[0]
	pv := func(a ir.Arg) *ir.Node { return c.viewAs(a.(*ir.Node), pshape) }
	var xhat, rstd *ir.Node
	if training {
		mean := c.op("div", c.op("sum", x, dt, true), n)
		xc := c.op("sub", x, mean)
		rstd = c.op("rsqrt", c.op("add", c.op("div", c.op("sum", c.op("mul", xc, xc), dt, true), n), c.a[ei]))
		xhat = c.op("mul", xc, rstd)
	} else {
		if c.t(1) == nil || c.t(2) == nil {
			c.fail("batch_norm in eval mode needs running_mean and running_var")
			return
		}
		rstd = c.op("rsqrt", c.op("add", pv(c.a[2]), c.a[ei]))
		xhat = c.op("mul", c.op("sub", x, pv(c.a[1])), rstd)
	}
	if c.needs(4) {
		c.acc(4, c.viewAs(c.op("sum", g, dt, false), []int{C}))
	}
	if c.needs(3) {
		c.acc(3, c.viewAs(c.op("sum", c.op("mul", g, xhat), dt, false), []int{C}))
	}
	if !c.needs(0) {
		return
	}
	gx := g
	if c.t(3) != nil {
		gx = c.op("mul", g, pv(c.a[3]))
	}
	if !training {
		c.acc(0, c.op("mul", gx, rstd))
		return
	}
	m1 := c.op("div", c.op("sum", gx, dt, true), n)
	m2 := c.op("div", c.op("sum", c.op("mul", gx, xhat), dt, true), n)
	c.acc(0, c.op("mul", rstd, c.op("sub", c.op("sub", gx, m1), c.op("mul", xhat, m2))))
}

// crossEntropyGrad: input [N, C, ...] (or [C]), integer class targets.
func crossEntropyGrad(c *dctx) {
	if !c.needs(0) {
		return
	}
	in := c.sizes(0)
	tm := c.meta(1)
	if tm.DType.IsFloat() {
		c.fail("probability targets have no derivative here (class-index targets only)")
		return
	}
	if c.a[2] != nil {
		c.fail("class weights have no derivative here")
		return
	}
	if len(in) == 1 { // [C] input, 0-d target: treat as a batch of one
		in = []int{1, in[0]}
	}
	C := len(in)
	cls := in[1]
	ls := dNumVal(c.a[7])
	ignore := c.a[4]
	red, _ := c.a[6].(string)
	x := c.viewAs(c.t(0), in)
	tshape := append([]int{in[0]}, in[2:]...)
	t := c.viewAs(c.t(1), tshape)
	tu := c.op("unsqueeze", t, int64(1))
	line := make([]int, C)
	for i := range line {
		line[i] = 1
	}
	line[1] = cls
	classes := c.viewAs(c.op("arange", int64(cls)), line)
	dt := c.meta(0).DType
	onehot := c.op("to_dtype", c.op("eq", classes, tu), dt)
	target := onehot
	if ls != 0 {
		target = c.op("add", c.op("mul", onehot, 1-ls), ls/float64(cls))
	}
	valid := c.op("to_dtype", c.op("ne", tu, ignore), dt)
	d := c.op("mul", c.op("sub", c.op("softmax", x, int64(1)), target), valid)
	var gx *ir.Node
	switch red {
	case "none":
		gx = c.op("mul", d, c.op("unsqueeze", c.viewAs(c.g, tshape), int64(1)))
	case "sum":
		gx = c.op("mul", d, c.g)
	case "mean":
		gx = c.op("div", c.op("mul", d, c.g), c.op("sum", valid))
	default:
		c.fail("reduction %q has no derivative here", red)
		return
	}
	c.acc(0, c.viewAs(gx, c.sizes(0)))
}
