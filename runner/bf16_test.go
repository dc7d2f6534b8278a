package runner

import (
	"strings"
	"testing"

	"gcdbg/trace"
)

// A bfloat16 model exported from PyTorch (testdata/models/bf16_mlp.py): the
// eager interpreter and the compiled C (16-bit storage, float compute,
// every op rounded to bfloat16: render/narrow.go; its matmuls eager
// fallbacks) both match PyTorch's output.
func TestBFloat16EagerAndCompiledMatchPyTorch(t *testing.T) {
	tr, err := trace.Load("testdata/bf16_mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	for _, dev := range []string{"eager", "cpu"} {
		res, err := Run(tr, Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatalf("--device %s: %v", dev, err)
		}
		if !res.OK || len(res.Graphs) != 1 || len(res.Graphs[0].Outputs) != 1 {
			t.Fatalf("--device %s does not match PyTorch:\n%s", dev, res.Summary())
		}
		if o := res.Graphs[0].Outputs[0]; o.VsExpected == nil || !o.VsExpected.Match {
			t.Errorf("--device %s: output not compared with PyTorch, or differs: %+v", dev, o.VsExpected)
		} else if d := o.VsExpected.Detail(); !strings.Contains(d, "bfloat16 rounding ≈") {
			// the reference check's noise is bfloat16's rounding, and says so (review10 finding 12)
			t.Errorf("--device %s: the detail does not name bfloat16's rounding: %s", dev, d)
		}
		if dev == "cpu" && res.Backend != "compiled" {
			t.Errorf("--device cpu: backend %q, want compiled", res.Backend)
		}
	}
}
