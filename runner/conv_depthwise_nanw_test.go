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
	g := checkConvRun(t, tr, units, 2, 6, "x, xb and the two convolutions' weights and biases")
	// the fixture reaches the non-finite paths: NaN/Inf where PyTorch has them, in both outputs and both input gradients
	checkNonFinite(t, g, true, "x", "xb")
}
