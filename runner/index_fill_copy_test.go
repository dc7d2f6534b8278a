package runner

import "testing"

// Tensor.index_fill and index_copy(_) (testdata/models/
// index_fill_copy_train.py, exported from PyTorch in training: a negative
// and a repeated column, a 0-dim parameter as the value, a scalar index, a
// repeated row where the last slice wins, a cache that requires grad) were
// refused ("unsupported Tensor method"); they decompose to where over a
// mask along dim and to scatter (stages/decomp_index_add.go). Eager and
// compiled match PyTorch, outputs and gradients, with no fallback.
func TestIndexFillAndCopyMatchPyTorch(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/index_fill_copy_train.json", 3, 4)
}
