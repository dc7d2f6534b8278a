package stages

import (
	"gcdbg/ir"
)

// cummax and cummin are core ops like cumsum (stages/scan.go): the loop IR
// makes them externs that render/cummax.go writes as one linear scan per
// row, values and int64 indices together. Their gradient is PyTorch's
// cummaxmin_backward: zeros.scatter_add(dim, indices, grad), sort's
// (sortGrad); a 0-d input's is the grad itself (its index is 0, whatever
// dim says).
func init() {
	if derivatives == nil {
		panic("stages: scan_cummax.go initialised before derivatives.go")
	}
	for _, op := range []string{"cummax", "cummin"} {
		ir.MarkCore("aten." + op)
		derivatives[op] = Derivative{"self: cummaxmin_backward(grad, self, indices, dim) = zeros.scatter_add(dim, indices, grad); a 0-d self: grad",
			func(c *dctx) {
				if len(c.sizes(0)) == 0 && c.needs(0) && len(c.items) > 0 && c.items[0] != nil {
					c.acc(0, c.items[0])
					return
				}
				sortGrad(c, 1)
			}}
	}
}
