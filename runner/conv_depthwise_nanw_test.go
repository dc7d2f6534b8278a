package runner

import "testing"

// Depthwise convolutions whose weights hold a NaN, +Inf and -Inf
// (testdata/models/conv_depthwise_nanw.py, exported from PyTorch 1.13, in
// training; dY = a fixed random r, finite): the forward, the input gradient
// (the backward input's row path for non-finite weights) and the weight and
// bias gradients take the depthwise kernels and match PyTorch, NaN and Inf
// at PyTorch's positions. Before the forward skipped padding for a
// non-finite weight, an Inf tap over the zero padding made the border
// outputs NaN (Inf·0) where PyTorch's float32 depthwise (oneDNN) and the
// eager interpreter are finite: output 0, element [0 2 0 0], a MISMATCH.
func TestConvDepthwiseNonFiniteWeights(t *testing.T) {
	tr, units, c := renderConvPrograms(t, "conv_depthwise_nanw.json")
	checkDepthwiseOnly(t, c, 2)
	checkConvRun(t, tr, units, 2, 6, "x, xb and the two convolutions' weights and biases")
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graphs[0]
	// the fixture reaches the non-finite paths: NaN/Inf where PyTorch has them, in both outputs and both input gradients
	for i, o := range g.Outputs {
		if o.VsEager == nil || !o.VsEager.Match || o.VsExpected == nil || o.VsExpected.NonFinite == 0 {
			t.Errorf("output %d: vs eager %+v; vs PyTorch %+v (want NaN/Inf in both)", i, o.VsEager, o.VsExpected)
		}
	}
	for _, gd := range g.Grads {
		if gd.VsEager == nil || !gd.VsEager.Match {
			t.Errorf("grad %s vs eager: %+v", gd.Name, gd.VsEager)
		}
		if (gd.Name == "x" || gd.Name == "xb") && (gd.VsExpected == nil || gd.VsExpected.NonFinite == 0) {
			t.Errorf("grad %s: no NaN/Inf compared with PyTorch's: %+v", gd.Name, gd.VsExpected)
		}
	}
}
