package stages

import "gcdbg/ir"

// cumsum's derivative (the reverse cumsum) is gradchecked against float64
// finite differences like every table entry, along the last and the first
// dim of a strided input.
func init() {
	gradCases["cumsum"] = func(gc *gradGraph) {
		x := gc.rand(3, 4)
		t := ir.Tuple{int64(1), int64(0)}
		a := gc.call("cumsum", x, int64(1))
		b := gc.call("cumsum", gc.call("permute", x, t), int64(0))
		gc.output(gc.call("mul", a, gc.call("permute", b, t)))
	}
}
