package runner

import "testing"

// scatter (no reduce=) compiles to generated C (testdata/models/
// scatter_overwrite.py, exported from PyTorch 1.13 in training): an MoE's
// top-2 gates into a dense [N, E], the inverse of a permutation
// (empty_like(v).scatter(0, order, v)), duplicate indices along dim 1 and
// dim 0 (the last write wins), a strided src, a transposed self, an expanded
// (stride-0) index, a long index, the value form
// on float, bool and int64, and scatter's own gradient (grad.scatter(dim,
// index, 0)). No scatter is an eager fallback, and the compiled program
// matches PyTorch's outputs and gradients.
func TestScatterCompiles(t *testing.T) {
	externs, res := externModel(t, "testdata/scatter_overwrite.json", "scatter")
	if externs < 14 { // the model's ten, the backward's self gradients
		t.Errorf("%d scatter externs, want at least 14", externs)
	}
	if !res.OK || len(res.Graphs[0].Outputs) != 11 || len(res.Graphs[0].Grads) != 3 {
		t.Errorf("compiled scatter does not match PyTorch:\n%s", res.Summary())
	}
}
