package runner

import "testing"

// F.affine_grid and F.grid_sample (testdata/models/grid_sample_train.py,
// exported from PyTorch in training: a spatial transformer's theta from a
// Linear, align_corners both ways, bilinear with zeros, border and
// reflection padding on grids reaching outside the image, nearest on a
// one-hot mask, a learned flow added to the grid) were refused as
// unsupported functions; they decompose to gather and pointwise ops
// (stages/decomp_grid_sample.go). Eager and compiled match PyTorch, outputs
// and the gradients of the image, theta's Linear, the conv and the flow.
func TestGridSampleMatchesPyTorch(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/grid_sample_train.json", 2, 6)
}
