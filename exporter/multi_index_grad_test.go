package exporter_test

import (
	"testing"

	"gcdbg/runner"
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
	for _, dev := range []string{"eager", "cpu"} {
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		g := res.Graphs[0]
		if !res.OK || g.NotComparedWithPyTorch != "" {
			t.Errorf("%s: does not match PyTorch:\n%s", dev, res.Summary())
		}
		if len(g.Outputs) != 2 || len(g.Grads) != 3 || len(g.Fallback) != 0 {
			t.Errorf("%s: %d outputs, %d grads compared, fallbacks %v; want 2, 3, none", dev, len(g.Outputs), len(g.Grads), g.Fallback)
		}
	}
}
