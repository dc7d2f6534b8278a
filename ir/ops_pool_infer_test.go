package ir_test

import (
	"fmt"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// poolSyntheticCases are argument sets of the ops of ops_pool_infer.go for
// TestInferAgreesWithInferenceByExample: batched and unbatched inputs,
// non-contiguous ones, padding, dilation, ceil_mode, None output sizes,
// zero batches, and errors on both sides (a window larger than the input,
// k out of range, disagreeing shapes).
func poolSyntheticCases() map[string][][]ir.Value {
	f32, f64, i64 := tensor.Float32, tensor.Float64, tensor.Int64
	i := func(v ...int64) ir.Tuple {
		t := ir.Tuple{}
		for _, x := range v {
			t = append(t, x)
		}
		return t
	}
	one := int64(1)
	sets := map[string][][]ir.Value{}
	add := func(op string, vals ...ir.Value) { sets["aten."+op] = append(sets["aten."+op], vals) }
	// nd spatial dims of sizes 7, 6, 5 (first nd), batched and not.
	for nd := 1; nd <= 3; nd++ {
		sp := []int{7, 6, 5}[:nd]
		b := append([]int{2, 3}, sp...)
		c := append([]int{3}, sp...)
		z := append([]int{0, 3}, sp...)
		perm := tm(f32, append([]int{3, 2}, sp...), append([]int{tensor.Numel(sp), 3 * tensor.Numel(sp)}, tensor.ContiguousStrides(sp)...)...)
		mp := fmt.Sprintf("max_pool%dd_with_indices", nd)
		amp := fmt.Sprintf("adaptive_max_pool%dd_with_indices", nd)
		un := fmt.Sprintf("max_unpool%dd", nd)
		add(mp, tm(f32, b), int64(2), nil, int64(0), one, false, false)
		add(mp, tm(f64, c), int64(3), int64(2), one, one, true, true)
		add(mp, perm, int64(2), one, one, int64(2), false, false)
		add(mp, tm(f32, z), int64(2), nil, int64(0), one, false, false)
		add(mp, tm(f32, b), int64(9), nil, int64(0), one, false, false) // window larger than the input
		add(mp, tm(f32, b), int64(2), nil, int64(2), one, false, false) // padding over half the window
		add(mp, tm(f32, []int{7}), int64(2), nil, int64(0), one, false, false)
		add(amp, tm(f32, b), int64(3), false)
		add(amp, tm(f64, c), int64(4), true)
		add(amp, perm, int64(2), false)
		add(amp, tm(f32, z), int64(2), false)
		add(amp, tm(f32, []int{4}), int64(2), false)
		pooled := append([]int{2, 3}, []int{3, 3, 2}[:nd]...)
		add(un, tm(f32, pooled), tm(i64, pooled), int64(2), nil, int64(0), nil)
		add(un, tm(f32, pooled[1:]), tm(i64, pooled[1:]), int64(2), int64(2), one, nil)
		add(un, tm(f32, pooled), tm(i64, pooled), int64(2), nil, int64(0), ir.List{int64(7), int64(6), int64(5)}[:nd])
		add(un, tm(f32, pooled), tm(i64, append([]int{2, 4}, pooled[2:]...)), int64(2), nil, int64(0), nil) // shapes disagree
		add(un, tm(f32, pooled), tm(f32, pooled), int64(2), nil, int64(0), nil)                             // float indices
	}
	x5 := tm(f32, []int{2, 3, 5, 6, 7})
	add("adaptive_max_pool3d", x5, int64(3), false)
	add("adaptive_max_pool3d", x5, ir.List{nil, int64(2), int64(4)}, true)
	add("adaptive_max_pool3d", tm(f64, []int{3, 5, 6, 7}), i(2, 3, 1), false)
	add("adaptive_max_pool3d_backward", tm(f32, []int{2, 3, 2, 2, 2}), x5, tm(i64, []int{2, 3, 2, 2, 2}))
	add("adaptive_max_pool3d_backward", tm(f64, []int{3, 1, 2, 2}), tm(f64, []int{3, 5, 6, 7}), tm(i64, []int{3, 1, 2, 2}))
	add("adaptive_max_pool3d_backward", tm(f32, []int{2, 3, 2, 2, 2}), x5, tm(i64, []int{2, 4, 2, 2, 2}))
	w := tm(f32, []int{3, 4, 2, 3, 2})
	add("conv_transpose3d", x5, w, tm(f32, []int{4}), one, int64(0), int64(0), one, one)
	add("conv_transpose3d", x5, w, nil, i(2, 1, 2), i(1, 0, 1), i(1, 0, 0), one, i(1, 2, 1))
	add("conv_transpose3d", tm(f32, []int{3, 5, 6, 7}), w, nil, one, int64(0), int64(0), one, one)
	add("conv_transpose3d", tm(f32, []int{2, 6, 5, 6, 7}), tm(f32, []int{6, 2, 2, 2, 2}), nil, int64(2), int64(0), one, int64(3), one)
	add("conv_transpose3d", tm(f32, []int{2, 2, 5, 6, 7}), w, nil, one, int64(0), int64(0), one, one) // channels disagree
	add("conv_transpose3d", tm(f32, []int{0, 3, 5, 6, 7}), w, nil, one, int64(0), int64(0), one, one)
	xk := tm(f32, []int{4, 3, 5})
	xkt := tm(f32, []int{5, 3, 4}, 1, 5, 15)
	for _, in := range []*ir.TensorMeta{xk, xkt, tm(i64, []int{4, 3, 5}), tm(f32, []int{}), tm(f32, []int{4, 0, 5})} {
		add("kthvalue", in, int64(2), int64(-1), false)
		add("kthvalue", in, one, int64(0), true)
		add("kthvalue", in, int64(4), int64(1), false) // out of range along a dim of 3
		add("kthvalue", in, int64(0), int64(-1), false)
		add("kthvalue", in, one, int64(3), false) // no such dim
		add("median", in, nil, false)
		add("median", in, int64(1), true)
		add("median", in, int64(-1), false)
		add("median", in, int64(-4), false)
	}
	add("median", tm(tensor.Bool, []int{3}), nil, false)
	return sets
}
