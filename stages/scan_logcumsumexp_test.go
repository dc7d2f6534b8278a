package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// logcumsumexp's derivative (PyTorch's logcumsumexp_backward) against
// finite differences: along both dims, over rows of very different
// magnitudes, with an incoming gradient of both signs (the mul).
func init() {
	gradCases["logcumsumexp"] = func(gc *gradGraph) {
		x := gc.rand(3, 5)
		a := gc.call("logcumsumexp", x, int64(1))
		b := gc.call("logcumsumexp", gc.call("permute", x, ir.Tuple{int64(1), int64(0)}), int64(0))
		wide := gc.input(tensor.FromFloats(tensor.Float64, []int{2, 4}, []float64{-30, 2, 25, -1, 0.5, -0.5, math.Log(3), 40}), true)
		c := gc.call("logcumsumexp", wide, int64(-1))
		w := gc.input(tensor.FromFloats(tensor.Float64, []int{2, 4}, []float64{1, -2, 0.5, 3, -1, 2, -0.25, 1.5}), false)
		gc.output(gc.call("sum", gc.call("mul", a, gc.call("permute", b, ir.Tuple{int64(1), int64(0)}))))
		gc.output(gc.call("mul", c, w))
	}
}
