package runner

import (
	"os/exec"
	"testing"

	"gcdbg/trace"
)

// The compiled time's parts: `gcdbg run` shows the time outside the
// kernels (the wrapper's own code and the worker round trips, measured in
// the runs that time each kernel) and the eager fallbacks' time and share
// (issue 13, items 2 and 4). The MLP has no fallback: its fallback time
// is 0 and the time outside kernels is a small positive part.
func TestCompiledTimeParts(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(tr, Options{Runs: 3, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range res.Graphs {
		tm := g.Timing
		if tm.CompiledMS <= 0 || tm.OutsideMS <= 0 {
			t.Errorf("graph %s: compiled %v ms, outside kernels %v ms: want both > 0", g.Name, tm.CompiledMS, tm.OutsideMS)
		}
		if len(g.Fallback) == 0 && tm.FallbackMS != 0 {
			t.Errorf("graph %s: no fallback node but %v ms in fallbacks", g.Name, tm.FallbackMS)
		}
		var kernels float64
		for _, k := range g.Kernels {
			kernels += k.(KernelResult).MS
		}
		if kernels <= 0 {
			t.Errorf("graph %s: no kernel time", g.Name)
		}
	}
}
