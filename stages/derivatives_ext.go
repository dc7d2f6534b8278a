package stages

import (
	"math"

	"gcdbg/ir"
)

// Derivatives of the core pointwise ops of ir/ops_ext.go, as in PyTorch's
// derivatives.yaml. (isinf has none: its result is bool.) derivatives.go's
// init builds the table first (files initialise in name order).
func init() {
	if derivatives == nil {
		panic("stages: derivatives_ext.go initialised before derivatives.go")
	}
	sq := func(c *dctx) *ir.Node { return c.op("mul", c.a[0], c.a[0]) }
	for k, v := range map[string]Derivative{
		"asin": dUnary("self: grad * (-self * self + 1).rsqrt()", func(c *dctx) *ir.Node {
			return c.op("mul", c.g, c.op("rsqrt", c.op("sub", 1.0, sq(c))))
		}),
		"acos": dUnary("self: grad * -((-self * self + 1).rsqrt())", func(c *dctx) *ir.Node {
			return c.op("mul", c.g, c.op("neg", c.op("rsqrt", c.op("sub", 1.0, sq(c)))))
		}),
		"atan": dUnary("self: grad / (self * self + 1)", func(c *dctx) *ir.Node {
			return c.op("div", c.g, c.op("add", sq(c), 1.0))
		}),
		"sinh": dUnary("self: grad * self.cosh()", func(c *dctx) *ir.Node { return c.op("mul", c.g, c.op("cosh", c.a[0])) }),
		"cosh": dUnary("self: grad * self.sinh()", func(c *dctx) *ir.Node { return c.op("mul", c.g, c.op("sinh", c.a[0])) }),
		"asinh": dUnary("self: grad * (self.pow(2) + 1).rsqrt()", func(c *dctx) *ir.Node {
			return c.op("mul", c.g, c.op("rsqrt", c.op("add", sq(c), 1.0)))
		}),
		"acosh": dUnary("self: grad * (self.pow(2) - 1).rsqrt()", func(c *dctx) *ir.Node {
			return c.op("mul", c.g, c.op("rsqrt", c.op("sub", sq(c), 1.0)))
		}),
		"atanh": dUnary("self: grad * 1 / (1 - self.pow(2))", func(c *dctx) *ir.Node {
			return c.op("div", c.g, c.op("sub", 1.0, sq(c)))
		}),
		"log2": dUnary("self: grad / (self * 0.6931471805599453)", func(c *dctx) *ir.Node {
			return c.op("div", c.g, c.op("mul", c.a[0], math.Ln2))
		}),
		"log10": dUnary("self: grad / (self * 2.3025850929940456)", func(c *dctx) *ir.Node {
			return c.op("div", c.g, c.op("mul", c.a[0], math.Ln10))
		}),
		"fmod": {"self: grad, other: -grad * self.div(other, rounding_mode='trunc')", func(c *dctx) {
			c.acc(0, c.g)
			if c.needs(1) {
				c.acc(1, c.op("mul", c.op("neg", c.g), c.op("trunc", c.op("div", c.a[0], c.a[1]))))
			}
		}},
	} {
		derivatives[k] = v
	}
}
