package stages

import (
	"gcdbg/tensor"
)

// Derivatives of the pooling core ops of ir/ops_pool.go, as PyTorch's
// derivatives.yaml has them: max pooling with indices adds each output
// gradient at the element its index names (adaptive_max_pool3d_backward, a
// core op compiled as a scatter per plane); max_unpool reads the gradient
// back at the indices (max_pool_double_backward, a gather). Indices are
// integers: no gradient.
func init() {
	if derivatives == nil {
		panic("stages: derivatives_pool.go initialised before derivatives.go")
	}
	// max_pool3d_with_indices_backward(grad, self, ..., indices) is the same
	// scatter by indices: one core op for both.
	derivatives["max_pool3d_with_indices"] = Derivative{"self: max_pool3d_with_indices_backward(grad, self, ..., indices) = adaptive_max_pool3d_backward(grad, self, indices)", poolIndicesGrad}
	derivatives["adaptive_max_pool3d_with_indices"] = Derivative{"self: adaptive_max_pool3d_backward(grad, self, indices)", poolIndicesGrad}
	derivatives["max_unpool3d"] = Derivative{"self: max_pool_double_backward(grad, indices, 3) = grad.view(planes, -1).gather(-1, indices.view(planes, -1)).view(self.sizes())", func(c *dctx) {
		if !c.needs(0) {
			return
		}
		in := c.sizes(0)
		planes, per := poolPlanes(in)
		out := c.n.Meta.Tensor
		if out == nil {
			c.fail("max_unpool3d: the result has no tensor meta")
			return
		}
		g := c.op("view", c.g, jointSizes([]int{planes, tensor.Numel(out.Shape.Sizes()) / max(planes, 1)}))
		idx := c.op("view", c.t(1), jointSizes([]int{planes, per}))
		c.acc(0, c.op("view", c.op("gather", g, int64(-1), idx), jointSizes(in)))
	}}
}

// poolPlanes splits a [N, C, D, H, W] or [C, D, H, W] shape into planes
// and the elements of each.
func poolPlanes(shape []int) (planes, per int) {
	lead := len(shape) - 3
	if lead < 0 {
		lead = 0
	}
	return tensor.Numel(shape[:lead]), tensor.Numel(shape[lead:])
}

func poolIndicesGrad(c *dctx) {
	if !c.needs(0) || len(c.items) == 0 || c.items[0] == nil {
		return
	}
	c.acc(0, c.op("adaptive_max_pool3d_backward", c.items[0], c.a[0], c.op("getitem", c.n, int64(1))))
}
