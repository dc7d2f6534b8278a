package runner

import (
	"testing"

	"gcdbg/trace"
)

// Boolean-mask selections read only by full sums (testdata/models/
// masked_sum.py, exported from PyTorch in training: `loss[valid].sum()`
// with a [B, N] mask over [B, N, C], `torch.sum(x[pos])` with a full-shape
// mask, a NaN at unselected positions) were refused for their
// data-dependent shape; they normalize to where(mask, x, 0) over x's shape
// (stages/normalize_masked_sum.go). Eager and compiled match PyTorch,
// outputs and gradients, with no fallback.
func TestMaskedSelectionSumsMatchPyTorch(t *testing.T) {
	tr, err := trace.Load("testdata/masked_sum.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range []string{"eager", "cpu"} {
		res, err := Run(tr, Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		g := res.Graphs[0]
		if !res.OK || len(g.Outputs) != 2 || len(g.Grads) != 2 || len(g.Fallback) != 0 {
			t.Errorf("%s: %d outputs, %d grads, fallbacks %v; want 2, 2, none:\n%s", dev, len(g.Outputs), len(g.Grads), g.Fallback, res.Summary())
		}
		checkAllMatch(t, g, " ("+dev+")")
	}
}
