package runner

import (
	"testing"

	"gcdbg/loopir"
	"gcdbg/stages"
	"gcdbg/trace"
)

// cummax and cummin compile as linear scans with their indices
// (testdata/models/cummax_scan.py, exported from PyTorch 1.13 in training):
// rows of a parameter, a strided view along dim 0, ties (the latest equal
// element's index, and its gradient), int32 values, NaN that sticks with
// each later NaN taking the index (and a NaN loss term's gradient at it), a
// 0-d input and an 8,000-long row. Every cummax/cummin is a loop IR extern
// and the compiled program matches PyTorch's outputs (indices exactly) and
// gradients (cummaxmin_backward).
func TestCummaxCompilesAsLinearScan(t *testing.T) {
	tr, err := trace.Load("testdata/cummax_scan.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	externs := 0
	for _, lp := range units[0].Programs {
		for _, n := range lp.Loops.Nodes {
			if n.Op == "cummax" || n.Op == "cummin" {
				if n.Kind != loopir.Extern {
					t.Errorf("%s graph: %s node %s is %s, want an extern", lp.Role, n.Op, n.Name, n.Kind)
				}
				externs++
			}
		}
	}
	if externs != 9 {
		t.Errorf("%d cummax/cummin externs, want the model's 9", externs)
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.Graphs[0].Outputs) != 13 || len(res.Graphs[0].Grads) != 2 {
		t.Errorf("compiled cummax/cummin does not match PyTorch:\n%s", res.Summary())
	}
}
