package stages

import (
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
)

// A bfloat16 batch's running mean is updated in bfloat16 arithmetic, as
// ATen's batch_norm_cpu_update_stats_template (narrowRunningMean): values
// from torch 1.13, F.batch_norm(x, rm, rv, training=True, momentum=0.3) of
// the x below: running_mean [2.28125, 0.53515625] (float statistics
// rounded once give 0.53125 for the second channel).
func TestNarrowRunningMeanMatchesPyTorch(t *testing.T) {
	x := tensor.FromFloats(tensor.BFloat16, []int{3, 2, 3}, []float64{1.296875, 2.703125, -0.400390625, 2.203125, 4.59375, -0.68359375,
		3.09375, 0.8984375, 2.203125, 5.28125, 1.53125, 3.75, 0.349609375, -1.703125, 5.5, 0.59375, -2.90625, 9.375})
	rm := tensor.FromFloats(tensor.BFloat16, []int{2}, []float64{2.59375, -0.369140625})
	rv := tensor.FromFloats(tensor.BFloat16, []int{2}, []float64{1.1015625, 0.80078125})
	g := oneOpGraph(opCase{"aten.batch_norm_functional", []*tensor.Tensor{x, rm, rv}, []ir.Arg{inp(0), inp(1), inp(2), nil, nil, 0.3, 1e-5}})
	dg, err := decomposeGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	out, err := interp.Run(dg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 2 {
		t.Fatalf("batch_norm_functional returned %d values", len(out))
	}
	got, err := interp.AsTensor(out[1])
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{2.28125, 0.53515625} {
		if g := got.Flat(i); g != want {
			t.Errorf("running_mean[%d] = %v, PyTorch %v", i, g, want)
		}
	}
}
