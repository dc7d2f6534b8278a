package runner

import (
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
	tr, err := trace.Load("testdata/ctc_loss_train.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range []string{"eager", "cpu"} {
		res, err := Run(tr, Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		g := res.Graphs[0]
		if len(g.Outputs) != 2 || len(g.Grads) != 2 || len(g.Fallback) != 0 {
			t.Errorf("%s: %d outputs, %d grads, fallbacks %v; want 2, 2, none", dev, len(g.Outputs), len(g.Grads), g.Fallback)
		}
		if !res.OK {
			t.Errorf("%s: does not match PyTorch:\n%s", dev, res.Summary())
		}
		checkAllMatch(t, g, " ("+dev+")")
	}
}
