package exporter_test

import (
	"testing"

	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// nn.EmbeddingBag with offsets (sum with per_sample_weights, mean with
// padding_idx, include_last_offset; empty and repeated bags) sums each
// bag's rows by a segment scatter_add, as ATen's offset2bag, instead of a
// [bags, entries] membership mask and an mm (DLRM's 4096 bags over 43030
// entries made 176M-element masks and was killed for memory in gcdbg run's
// reference runs): no tensor of the decomposed graph is as large as
// bags x entries, and the eager and compiled runs match PyTorch's outputs
// and gradients.
func TestEmbeddingBagOffsetsSegmentSum(t *testing.T) {
	tr := exportLoad(t, "testdata/embedding_bag_offsets.py")
	units, err := stages.Run(tr, "decomposed")
	if err != nil {
		t.Fatal(err)
	}
	entries := 0
	for _, n := range units[0].Decomposed.Nodes {
		if n.Target == "idx" && n.Meta.Tensor != nil {
			entries = n.Meta.Tensor.Shape[0].Size
		}
	}
	if entries < 1000 {
		t.Fatalf("the trace's idx has %d entries, want >= 1000", entries)
	}
	for _, n := range units[0].Decomposed.Nodes {
		if m := n.Meta.Tensor; m != nil && tensor.Numel(m.Shape.Sizes()) >= 512*entries/2 {
			t.Errorf("node %s (%s) has %v elements: a bags x entries tensor", n.Name, n.Target, m.Shape)
		}
	}
	matchesCompiled(t, tr, 2, 3)
}

// matchesCompiled runs tr eagerly and compiled: both must match PyTorch
// elementwise with outs outputs and grads gradients compared and no eager
// fallback.
func matchesCompiled(t *testing.T, tr *trace.Trace, outs, grads int) {
	t.Helper()
	for _, dev := range []string{"eager", "cpu"} {
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		g := res.Graphs[0]
		if !res.OK || g.NotComparedWithPyTorch != "" {
			t.Errorf("%s: does not match PyTorch elementwise:\n%s", dev, res.Summary())
		}
		if len(g.Outputs) != outs || len(g.Grads) != grads || len(g.Fallback) != 0 {
			t.Errorf("%s: %d outputs, %d grads compared, fallbacks %v; want %d, %d, none", dev, len(g.Outputs), len(g.Grads), g.Fallback, outs, grads)
		}
	}
}
