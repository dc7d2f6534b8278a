package runner

import "testing"

// scatter_reduce (testdata/models/scatter_reduce_train.py, exported from
// PyTorch in training: a graph network's max pool per graph with
// include_self=False and an empty graph, amin into a parameter with
// include_self=True, sum with include_self=False into a -0.0/NaN self,
// prod along dim 1, ties for the max, a NaN in src) ran as eager fallbacks
// (8 in this model); its sum, prod, amax and amin forms compile to
// generated C (render/scatter_extern.go). Eager and compiled match
// PyTorch, outputs and gradients, with no fallback.
func TestScatterReduceCompilesAndMatchesPyTorch(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/scatter_reduce_train.json", 4, 3)
}
