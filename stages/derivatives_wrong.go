package stages

// WrongDerivativeForTest makes op's derivative formula wrong — its
// incoming gradient scaled by factor — until undo is called. It exists so
// that tests can prove the accuracy verdict catches a wrong gradient
// formula, which gcdbg's own float64 reference shares with the compiled
// code; nothing else may call it. op is the canonical name without
// "aten." ("relu"); undo is a no-op for an op with no derivative.
func WrongDerivativeForTest(op string, factor float64) (undo func()) {
	orig, ok := derivatives[op]
	if !ok {
		return func() {}
	}
	derivatives[op] = Derivative{orig.Formula + " (made wrong by a test)", func(c *dctx) {
		if c.g != nil {
			c.g = c.op("mul", c.g, factor)
		}
		orig.Grad(c)
	}}
	return func() { derivatives[op] = orig }
}
