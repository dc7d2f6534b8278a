package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// cumsum's and cumprod's derivatives are gradchecked against float64
// finite differences like every table entry: along the last and the first
// dim of a strided input, and for cumprod also rows with no zero, one zero
// and two zeros (PyTorch's cumprod_backward's three cases).
func init() {
	t := ir.Tuple{int64(1), int64(0)}
	gradCases["cumsum"] = func(gc *gradGraph) {
		x := gc.rand(3, 4)
		a := gc.call("cumsum", x, int64(1))
		b := gc.call("cumsum", gc.call("permute", x, t), int64(0))
		gc.output(gc.call("mul", a, gc.call("permute", b, t)))
	}
	gradCases["cumprod"] = func(gc *gradGraph) {
		x := gc.rand(3, 4)
		a := gc.call("cumprod", x, int64(1))
		b := gc.call("cumprod", gc.call("permute", x, t), int64(0))
		z := gc.input(tensor.FromFloats(tensor.Float64, []int{3, 5}, []float64{
			0.7, -1.3, 0.9, 1.1, -0.4, // no zero
			0.8, 1.2, 0, -0.6, 1.5, // one zero
			1.4, 0, 0.5, 0, 0.9, // two zeros
		}), true)
		gc.output(gc.call("mul", a, gc.call("permute", b, t)), gc.call("cumprod", z, int64(-1)))
	}
}

// cummax's and cummin's derivative (sort's scatter_add at the indices) is
// gradchecked on distinct values (no tie a finite-difference step could
// flip), along both dims of a strided input and on a 0-d input; ties and
// NaN are checked against PyTorch's gradients by runner/cummax_test.go.
func init() {
	for _, op := range []string{"cummax", "cummin"} {
		gradCases[op] = func(gc *gradGraph) {
			x := gc.distinct(3, 5)
			a := gc.call("getitem", gc.call(op, x, int64(1)), int64(0))
			b := gc.call("getitem", gc.call(op, gc.call("permute", x, ir.Tuple{int64(1), int64(0)}), int64(1)), int64(0))
			s := gc.call("getitem", gc.call(op, gc.call("select", x, int64(0), int64(2)), int64(0)), int64(0))
			z := gc.call("getitem", gc.call(op, gc.call("select", s, int64(0), int64(4)), int64(3)), int64(0))
			gc.output(gc.call("mul", a, gc.call("permute", b, ir.Tuple{int64(1), int64(0)})), z)
		}
	}
}
