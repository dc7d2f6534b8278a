package runner

import (
	"regexp"
	"strings"
	"testing"
)

// A pixel shuffle's copy nest [N, C, H, r, W, r] ends in a loop of r
// points (testdata/models/pixel_shuffle_tiny_train.py: factors 3 and 4,
// rows of 17 and 20 columns, and the unshuffle's gradient, factor 2). As
// the SIMD loop those r points compiled to scalar code with a branch per
// element (render/loops_tiny.go); the row is now the SIMD loop with the r
// points inside it. The forward PixelShuffle(3) + PReLU kernel must be
// written that way, and the compiled program (forward and backward, where
// the factor-4 and factor-2 nests take the same form) must match PyTorch
// and the eager interpreter, outputs and gradients.
func TestPixelShuffleTinyInnerLoopInsideSIMD(t *testing.T) {
	tr, units, src := renderFirstProgram(t, "testdata/pixel_shuffle_tiny_train.json")
	want := regexp.MustCompile(`#pragma omp simd\s*\n\s*for \(int64_t (x\d+) = 0; x\d+ < 20; x\d+\+\+\) \{\s*\n\s*for \(int64_t x\d+ = 0; x\d+ < 3; x\d+\+\+\) \{`)
	seen := false
	for _, k := range strings.Split(src.Code, "// kernel ")[1:] {
		if !strings.Contains(k, "// origins: up3_0_clone") {
			continue
		}
		seen = true
		if !want.MatchString(k) {
			t.Errorf("PixelShuffle(3) kernel does not run its 20-column row as the SIMD loop with the 3 points inside:\n%s", k)
		}
	}
	if !seen {
		t.Fatalf("no kernel holds the PixelShuffle(3) copy (up3_0_clone):\n%s", src.Code)
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graphs[0]
	if !res.OK || len(g.Outputs) != 3 || len(g.Grads) != 3 {
		t.Errorf("compiled pixel shuffles do not match PyTorch (%d outputs, %d grads):\n%s", len(g.Outputs), len(g.Grads), res.Summary())
	}
	checkAllMatch(t, g, "")
}
