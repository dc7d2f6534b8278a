package runner

import (
	"testing"

	"gcdbg/stages"
	"gcdbg/trace"
)

func TestLoopStats(t *testing.T) {
	tr, err := trace.Load("../fixtures/sin_cos.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	LoopStats(units[0], m)
	if m["kernels_before_fusion"] != 2 || m["kernels"] != 1 || m["peak_bytes"] != int64(64*128*4*2) {
		t.Errorf("stats %v", m)
	}
}
