package runner

import "testing"

// F.ctc_loss in training (testdata/models/ctc_loss_train.py, exported from
// PyTorch 1.13): it was refused at the normalized stage ("unsupported
// function torch.nn.functional.ctc_loss"). gcdbg decomposes it into the
// alpha recursion unrolled over the frames (stages/decomp_ctc.go) and
// differentiates that; eager and compiled match PyTorch's losses (mean,
// sum with blank = C-1, none with one sequence's inf kept), over shorter
// input lengths, a repeated label, an empty target and an infeasible
// sequence zeroed by zero_infinity, and the Linear's gradients, with no
// eager fallback.
func TestCTCLossMatchesPyTorch(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/ctc_loss_train.json", 2, 2)
}
