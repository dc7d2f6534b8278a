package exporter_test

import (
	"testing"
)

// The gradient of x[..., i, j, ...] with several integer index tensors
// (DLRM's Z[:, li, lj]) is PyTorch's index_put(zeros, (i, j), g,
// accumulate=True): adjacent index tensors in the middle and at the front,
// broadcast against each other, negative and repeated indices. It was
// refused at the joint stage ("only one integer index tensor has a
// derivative here"); now eager and compiled runs match PyTorch's outputs and
// gradients. The forward compiles: adjacent int64 index tensors become one
// index_select over the indexed dims flattened (no aten.index eager
// fallback).
func TestMultiIndexTensorGradient(t *testing.T) {
	tr := exportLoad(t, "testdata/multi_index_grad.py")
	matchesCompiled(t, tr, 2, 3)
}
