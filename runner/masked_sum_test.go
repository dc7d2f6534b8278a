package runner

import "testing"

// Boolean-mask selections read only by full sums (testdata/models/
// masked_sum.py, exported from PyTorch in training: `loss[valid].sum()`
// with a [B, N] mask over [B, N, C], `torch.sum(x[pos])` with a full-shape
// mask, a NaN at unselected positions) were refused for their
// data-dependent shape; they normalize to where(mask, x, 0) over x's shape
// (stages/normalize_masked_sum.go). Eager and compiled match PyTorch,
// outputs and gradients, with no fallback.
func TestMaskedSelectionSumsMatchPyTorch(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/masked_sum.json", 2, 2)
}
