package runner

import (
	"math"
	"testing"

	"gcdbg/trace"
)

// Norms and standard deviations of exactly-zero rows in training
// (testdata/models/zero_norm_grads.py: F.normalize of masked padding rows,
// cdist(h, h)'s zero diagonal, a p = 3 norm, std of constant rows) get
// PyTorch's gradient there, 0 through the root, so every gradient matches
// PyTorch's, eager and compiled; they were NaN (review10, findings 1-3).
func TestZeroNormGradientsMatchPyTorch(t *testing.T) {
	tr, err := trace.Load("testdata/zero_norm_grads.json")
	if err != nil {
		t.Fatal(err)
	}
	devices := []string{"eager"}
	if _, why := DefaultDevice(); why == "" {
		devices = append(devices, "cpu")
	}
	for _, device := range devices {
		res, err := Run(tr, Options{Runs: 1, Device: device})
		if err != nil {
			t.Fatal(err)
		}
		g := res.Graphs[0]
		if len(g.Grads) != 4 {
			t.Fatalf("%s: %d grads, want 4", device, len(g.Grads))
		}
		checkAllMatch(t, g, " ("+device+")")
		for _, gd := range g.Grads {
			if gd.VsExpected != nil && (math.IsNaN(gd.VsExpected.MaxAbsErr) || math.IsInf(gd.VsExpected.MaxAbsErr, 0)) {
				t.Errorf("%s: grad %s: max abs err %v", device, gd.Name, gd.VsExpected.MaxAbsErr)
			}
		}
	}
}
