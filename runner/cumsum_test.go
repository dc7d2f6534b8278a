package runner

import (
	"testing"

	"gcdbg/loopir"
	"gcdbg/stages"
	"gcdbg/trace"
)

// cumsum compiles as a linear scan (testdata/models/cumsum_scan.py,
// exported from PyTorch in training): a 16,384-long running total — whose
// masked [n, n] decomposition needed a 4.3e9-element tensor — a cumsum of a
// transposed view, an int32 cumsum (int64 result) and one to float64; the
// compiled program matches PyTorch's outputs and the gradient (the reverse
// cumsum), every cumsum is a loop IR extern and no buffer is larger than
// the model's own tensors.
func TestCumsumCompilesAsLinearScan(t *testing.T) {
	tr, err := trace.Load("testdata/cumsum_scan.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	externs := 0
	for _, lp := range units[0].Programs {
		for _, b := range lp.Loops.Buffers {
			numel := int64(1)
			for _, s := range b.Sizes {
				numel *= s.Eval(nil)
			}
			if numel > 4*16384 {
				t.Errorf("%s graph: buffer %s has %d elements (a quadratic cumsum?)", lp.Role, b.Name, numel)
			}
		}
		for _, n := range lp.Loops.Nodes {
			if n.Op == "cumsum" {
				if n.Kind != loopir.Extern {
					t.Errorf("%s graph: cumsum node %s is %s, want an extern", lp.Role, n.Name, n.Kind)
				}
				externs++
			}
		}
	}
	if externs < 5 { // four in the forward, the reverse cumsum(s) of the backward
		t.Errorf("%d cumsum externs, want at least 5", externs)
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.Graphs[0].Outputs) != 4 || len(res.Graphs[0].Grads) != 1 {
		t.Errorf("compiled cumsum does not match PyTorch:\n%s", res.Summary())
	}
}
