package runner

import (
	"testing"

	"gcdbg/loopir"
	"gcdbg/stages"
	"gcdbg/trace"
)

// externModel loads a trace exported from PyTorch (testdata/models/*.py),
// checks that every node of ops in its compiled programs is a loop IR
// extern, and runs it once on the CPU, compiled. It returns how many such
// nodes there are and the run's result, compared with PyTorch.
func externModel(t *testing.T, path string, ops ...string) (int, *Result) {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, op := range ops {
		want[op] = true
	}
	externs := 0
	for _, lp := range units[0].Programs {
		for _, n := range lp.Loops.Nodes {
			if want[n.Op] {
				if n.Kind != loopir.Extern {
					t.Errorf("%s graph: %s node %s is %s, want an extern", lp.Role, n.Op, n.Name, n.Kind)
				}
				externs++
			}
		}
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	return externs, res
}
