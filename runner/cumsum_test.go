package runner

import (
	"testing"

	"gcdbg/loopir"
	"gcdbg/stages"
	"gcdbg/trace"
)

// cumsum and cumprod compile as linear scans (testdata/models/
// cumsum_scan.py, exported from PyTorch in training): a 16,384-long running
// total — whose masked [n, n] decomposition needed a 4.3e9-element tensor —
// and product, a cumsum of a transposed view, an int32 cumsum (int64
// result), one to float64 and a cumprod of rows with zero, one and two
// zeros; the compiled program matches PyTorch's outputs and gradients (the
// reverse cumsum, cumprod_backward), every scan is a loop IR extern and no
// buffer is larger than the model's own tensors.
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
			if n.Op == "cumsum" || n.Op == "cumprod" {
				if n.Kind != loopir.Extern {
					t.Errorf("%s graph: %s node %s is %s, want an extern", lp.Role, n.Op, n.Name, n.Kind)
				}
				externs++
			}
		}
	}
	if externs < 8 { // six in the forward, the reverse cumsums of the backward
		t.Errorf("%d cumsum/cumprod externs, want at least 8", externs)
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.Graphs[0].Outputs) != 6 || len(res.Graphs[0].Grads) != 2 {
		t.Errorf("compiled cumsum/cumprod does not match PyTorch:\n%s", res.Summary())
	}
}
