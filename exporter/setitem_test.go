package exporter_test

import "testing"

// torch 1.13's fx Proxy has no __setitem__: `labels[best < 0.4] = 0`
// (detection label assignment) failed to export with "'_Proxy' object does
// not support item assignment". The tracer records operator.setitem as
// Dynamo does; gcdbg functionalizes the writes (masked fills, a slice write
// of a tensor, a masked write of a tensor) and its eager and compiled runs
// match PyTorch, outputs (the labels included) and gradients.
func TestProxyItemAssignment(t *testing.T) {
	_, msg, err := export(t, "setitem_mask.py")
	if err != nil {
		t.Fatalf("export failed: %v\n%s", err, msg)
	}
	tr := exportLoad(t, "testdata/setitem_mask.py")
	matchesCompiled(t, tr, 2, 2)
}
