package runner

import "testing"

// cummax and cummin compile as linear scans with their indices
// (testdata/models/cummax_scan.py, exported from PyTorch 1.13 in training):
// rows of a parameter, a strided view along dim 0, ties (the latest equal
// element's index, and its gradient), int32 values, NaN that sticks with
// each later NaN taking the index (and a NaN loss term's gradient at it), a
// 0-d input and an 8,000-long row. Every cummax/cummin is a loop IR extern
// and the compiled program matches PyTorch's outputs (indices exactly) and
// gradients (cummaxmin_backward).
func TestCummaxCompilesAsLinearScan(t *testing.T) {
	externs, res := externModel(t, "testdata/cummax_scan.json", "cummax", "cummin")
	if externs != 9 {
		t.Errorf("%d cummax/cummin externs, want the model's 9", externs)
	}
	if !res.OK || len(res.Graphs[0].Outputs) != 13 || len(res.Graphs[0].Grads) != 2 {
		t.Errorf("compiled cummax/cummin does not match PyTorch:\n%s", res.Summary())
	}
}
