package stages

import (
	"gcdbg/ir"
	"gcdbg/tensor"
)

// Gradcheck cases of the 3-D max pools with indices and max_unpool3d
// (derivatives_pool.go). Their inputs are distinct values at least 0.1
// apart, so no window holds a tie that a finite-difference step could
// flip; the windows overlap (stride below the kernel, adaptive sizes that
// don't divide) so that an element feeding several windows gets the sum.

// distinct is a float64 input that requires grad: a random permutation of
// 0.2, 0.3, ... with random signs.
func (gc *gradGraph) distinct(shape ...int) *ir.Node {
	n := tensor.Numel(shape)
	v := make([]float64, n)
	for i, p := range gc.rng.Perm(n) {
		v[i] = 0.2 + 0.1*float64(p)
		if gc.rng.Intn(2) == 0 {
			v[i] = -v[i]
		}
	}
	return gc.input(tensor.FromFloats(tensor.Float64, shape, v), true)
}

func init() {
	i3 := func(a, b, c int64) ir.Tuple { return ir.Tuple{a, b, c} }
	gradCases["max_pool3d_with_indices"] = func(gc *gradGraph) {
		p := gc.call("max_pool3d_with_indices", gc.distinct(1, 2, 5, 5, 4), i3(3, 2, 2), i3(2, 1, 2), i3(1, 1, 1))
		q := gc.call("max_pool3d_with_indices", gc.distinct(2, 6, 5, 5), int64(2), int64(2), int64(0), i3(2, 1, 2), true)
		gc.output(gc.call("getitem", p, int64(0)), gc.call("getitem", q, int64(0)))
	}
	gradCases["adaptive_max_pool3d_with_indices"] = func(gc *gradGraph) {
		p := gc.call("adaptive_max_pool3d_with_indices", gc.distinct(1, 2, 5, 6, 7), i3(3, 4, 2))
		q := gc.call("adaptive_max_pool3d_with_indices", gc.distinct(2, 3, 3, 4), int64(2))
		gc.output(gc.call("getitem", p, int64(0)), gc.call("getitem", q, int64(0)))
	}
	gradCases["max_unpool3d"] = func(gc *gradGraph) {
		// The indices of a 2x2x2 non-overlapping max pool of a [2, 4, 4, 4]
		// plane: one distinct position per window, as F.max_unpool3d expects
		// (repeated indices make the scatter's winner arbitrary).
		var idx []int64
		for c := 0; c < 2; c++ {
			for d := 0; d < 2; d++ {
				for h := 0; h < 2; h++ {
					for w := 0; w < 2; w++ {
						o := gc.rng.Intn(8)
						idx = append(idx, int64(((2*d+o/4)*4+2*h+o/2%2)*4+2*w+o%2))
					}
				}
			}
		}
		x := gc.rand(1, 2, 2, 2, 2)
		gc.output(gc.call("max_unpool3d", x, gc.ints([]int{1, 2, 2, 2, 2}, idx...), int64(2)),
			gc.call("max_unpool3d", x, gc.ints([]int{1, 2, 2, 2, 2}, idx...), int64(2), int64(2), int64(0), ir.List{int64(5), int64(4), int64(5)}))
	}
}
