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
// gradients.
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
		// (the forward's aten.index nodes run as eager fallbacks, docs/core-ops.md)
		if len(g.Outputs) != 2 || len(g.Grads) != 3 {
			t.Errorf("%s: %d outputs, %d grads compared; want 2, 3", dev, len(g.Outputs), len(g.Grads))
		}
	}
}
