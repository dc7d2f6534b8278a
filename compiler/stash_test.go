package compiler_test

import (
	"strings"
	"testing"
)

// In testdata/vector_reductions.json's fused row kernel, softmax's exp is
// computed once: the sum pass stashes it in softmax's output and the last
// pass reads it back (render/stash.go). log_softmax's exp is not stashed:
// its last pass needs only log(sum). TestVectorReductionsMatchPyTorch
// checks the stashed kernel's values against PyTorch's on rows with NaN,
// ±Inf and -0; TestVectorReductionsVectorize that its loops stay vector
// loops.
func TestStashSoftmaxExp(t *testing.T) {
	u := loadUnits(t, "testdata/vector_reductions.json")[0]
	src := renderLP(t, u, u.Programs[0])
	if n := strings.Count(src.Code, "stashed for the later passes"); n != 1 {
		t.Fatalf("%d stash stores, want 1 (softmax's exp):\n%s", n, src.Code)
	}
	if n := strings.Count(src.Code, "= expf("); n != 2 {
		t.Errorf("%d expf calls, want 2 (softmax's and log_softmax's, each once):\n%s", n, src.Code)
	}
}
