package runner

import "testing"

// The LSTM language model whose backward recomputes 32 steps' gates in one
// fused kernel (testdata/models/lstm_recompute_train.py; compiler's
// TestLSTMRecomputeVectorized checks that kernel's loops vectorized): its
// loss and 7 parameter gradients match PyTorch's, compiled and eager.
func TestLSTMRecomputeMatchesPyTorch(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/lstm_recompute_train.json", 1, 7)
}
