package runner

import (
	"strings"
	"testing"

	"gcdbg/trace"
)

// A bfloat16 model exported from PyTorch (testdata/models/bf16_mlp.py):
// --device eager never needs the C renderer, runs it and matches PyTorch's
// output; --device cpu refuses it naming the buffer, its graph node and the
// dtype, and suggests --device eager.
func TestBFloat16EagerRunsAndCPURefusesClearly(t *testing.T) {
	tr, err := trace.Load("testdata/bf16_mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(tr, Options{Runs: 1, Device: "eager"})
	if err != nil {
		t.Fatalf("--device eager: %v", err)
	}
	if !res.OK || len(res.Graphs) != 1 || len(res.Graphs[0].Outputs) != 1 {
		t.Fatalf("--device eager does not match PyTorch:\n%s", res.Summary())
	}
	if o := res.Graphs[0].Outputs[0]; o.VsExpected == nil || !o.VsExpected.Match {
		t.Errorf("output not compared with PyTorch, or differs: %+v", o.VsExpected)
	}
	_, err = Run(tr, Options{Runs: 1, Device: "cpu"})
	if err == nil {
		t.Fatal("--device cpu compiled a bfloat16 model it has no C type for")
	}
	for _, want := range []string{`buffer "`, `graph node "input_1"`, "dtype bfloat16", "--device eager"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("--device cpu error %q does not say %q", err, want)
		}
	}
}
