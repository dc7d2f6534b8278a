package stages

// Derivatives of conv2d_backward_input as a forward op: a transposed
// convolution is lowered to it (decomp_ext_nn.go convTranspose; PyTorch's
// ConvTranspose2d computes the same product, the gradient of a convolution
// with respect to its input). With y = conv2d_backward_input(x, w, sizes,
// stride, padding, dilation, groups), x playing the convolution's output
// gradient: dx = conv2d(dy, w, stride, padding, dilation, groups) (the
// convolution of which y is the input gradient), dw =
// conv2d_backward_weight(x, dy, w.sizes(), ...) (x in the output
// gradient's place, dy in the input's).
func init() {
	if derivatives == nil {
		panic("stages: derivatives_conv.go initialised before derivatives.go")
	}
	derivatives["conv2d_backward_input"] = Derivative{"grad_output: conv2d(grad, weight, None, stride, padding, dilation, groups), weight: conv2d_backward_weight(grad_output, grad, weight.sizes(), stride, padding, dilation, groups)", func(c *dctx) {
		if c.needs(0) {
			c.acc(0, c.op("conv2d", c.g, c.a[1], nil, c.a[3], c.a[4], c.a[5], c.a[6]))
		}
		if c.needs(1) {
			c.acc(1, c.op("conv2d_backward_weight", c.a[0], c.g, dInts(c.sizes(1)), c.a[3], c.a[4], c.a[5], c.a[6]))
		}
	}}
}
