package runner

import (
	"math"
	"testing"

	"gcdbg/trace"
)

// Boolean-mask selections read only by full sums (testdata/models/
// masked_sum.py, exported from PyTorch in training: `loss[valid].sum()`
// with a [B, N] mask over [B, N, C], `torch.sum(x[pos])` with a full-shape
// mask, a NaN at unselected positions) were refused for their
// data-dependent shape; they normalize to where(mask, x, 0) over x's shape
// (stages/normalize_masked_sel.go). Eager and compiled match PyTorch,
// outputs and gradients, with no fallback.
func TestMaskedSelectionSumsMatchPyTorch(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/masked_sum.json", 2, 2)
}

// Selections read by means and by losses with reduction="mean" (refused
// before: only sums were taken), exported from PyTorch in training:
// masked_det_mean.py, a detection head's BCE-with-logits over non-ignored
// anchors, smooth-L1 over positive anchors, a pointwise chain then mean,
// sum(-1) then mean, the mean of a [B, N] mask's selection of [B, N, C], a
// sum divided by the selection's numel();
// masked_tok_ce.py, a token classifier's cross_entropy(logits[valid],
// labels[valid]) with valid = labels != -100, again with class weights and
// label smoothing, mse/l1/huber on a regression head, a sum divided by
// labels[valid].size(0); masked_edges.py, an
// all-false mask (PyTorch's NaN means, zero gradients), an all-true one, a
// learned temperature times the log of a selection (-inf in the padded rows:
// its gradient stays finite), a NaN row outside the selection, mean(0) and
// sum(0). Eager and compiled match PyTorch's outputs and gradients.
func TestMaskedSelectionMeansAndLossesMatchPyTorch(t *testing.T) {
	for _, c := range []struct {
		name           string
		outputs, grads int
	}{{"masked_det_mean", 2, 8}, {"masked_tok_ce", 2, 7}, {"masked_edges", 2, 3}} {
		t.Run(c.name, func(t *testing.T) {
			checkEagerAndCompiled(t, "testdata/"+c.name+".json", c.outputs, c.grads)
		})
	}
	// The empty selection's losses are NaN in PyTorch's own run, so the
	// match above covers that edge.
	tr, err := trace.Load("testdata/masked_edges.json")
	if err != nil {
		t.Fatal(err)
	}
	out := tr.Graphs[0].Expected.Outputs[1]
	if v := out.Floats(); len(v) != 1 || !math.IsNaN(v[0]) {
		t.Errorf("masked_edges' empty-selection output is %v in PyTorch's run; the edge it tests needs NaN", v)
	}
}
