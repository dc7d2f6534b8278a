package runner

import (
	"math"
	"testing"

	"gcdbg/trace"
)

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

// Without zero_infinity, a sample with no alignment makes PyTorch's loss
// inf and its gradients NaN (testdata/models/ctc_inf_nozero.py); gcdbg's
// were finite, zero_infinity's, and the verdict said MISMATCH.
func TestCTCInfeasibleWithoutZeroInfinityGivesNaNGrads(t *testing.T) {
	tr, err := trace.Load("testdata/ctc_inf_nozero.json")
	if err != nil {
		t.Fatal(err)
	}
	nan := 0
	for _, v := range tr.Graphs[0].Expected.Grads {
		for i := 0; i < v.Numel(); i++ {
			if math.IsNaN(v.Flat(i)) {
				nan++
			}
		}
	}
	if nan == 0 {
		t.Fatal("test premise: PyTorch's gradients hold NaN")
	}
	checkEagerAndCompiled(t, "testdata/ctc_inf_nozero.json", 1, 4)
}
