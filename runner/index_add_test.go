package runner

import "testing"

// torch.index_add / Tensor.index_add(_) (testdata/models/index_add_train.py,
// exported from PyTorch in training: a GNN's zeros_like(x).index_add_(0,
// dst, msg) with repeated and missing destinations, dim 1 with alpha=2.5
// and an int32 index, index_add of a parameter, a count by index_add_ of
// ones) were refused ("unsupported Tensor method"); they decompose to
// scatter_add (stages/decomp_index_add.go). Eager and compiled match
// PyTorch, outputs and the gradients of x, the Linear and the parameter.
func TestIndexAddMatchesPyTorch(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/index_add_train.json", 2, 4)
}
