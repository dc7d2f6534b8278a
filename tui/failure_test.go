package tui

import (
	"strings"
	"testing"

	"gcdbg/trace"
)

// A trace with a deliberately unknown op opens in the explorer: the
// captured graph marks the node, the guards stay, every later stage says
// where and why the pipeline stopped (issue 15, graceful degradation).
func TestExploreShowsStagesUpToUnknownOp(t *testing.T) {
	tr, err := trace.Load("../stages/testdata/degrade/unknown_op.json")
	if err != nil {
		t.Fatal(err)
	}
	msg := loadUntil(tr, "")
	if msg.err == nil || len(msg.units) != 1 {
		t.Fatalf("err %v, %d units", msg.err, len(msg.units))
	}
	text := map[string]string{}
	for _, d := range msg.units[0].stages {
		text[d.name] = strings.Join(d.lines, "\n")
	}
	if c := text["captured"]; !strings.Contains(c, "gcdbg_unknown_scale") || !strings.Contains(c, "gcdbg stops here") {
		t.Errorf("captured does not mark the unknown node:\n%s", c)
	}
	if !strings.Contains(text["guards"], "TENSOR_MATCH") {
		t.Errorf("guards lost:\n%s", text["guards"])
	}
	for _, name := range []string{"normalized", "joint", "forward", "loopir", "kernels"} {
		if s := text[name]; !strings.Contains(s, "gcdbg_unknown_scale") || !strings.Contains(s, "reason:") {
			t.Errorf("stage %s shows %q, want where and why the pipeline stopped", name, s)
		}
	}
}
