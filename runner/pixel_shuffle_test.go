package runner

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A pixel shuffle's copy (testdata/models/pixel_shuffle_train.py: conv to
// 4C, nn.PixelShuffle(2), nn.PReLU(C), exported from PyTorch in training)
// is a nest [N, C, H, 2, W, 2] whose innermost loop has 2 points. Its
// OpenMP pragma collapsed every loop but the innermost (collapse(5)),
// which took 30–40 ms for examples/review3/sr_resnet.py's 18.9 MB map
// where collapse(3) takes 8 ms (render/loops_collapse.go). The forward
// program's kernels now collapse no more loops than reach 256 iterations,
// and the compiled program (every forced choice) matches PyTorch and the
// eager interpreter, outputs and gradients.
func TestPixelShuffleCollapsesOnlyEnoughLoops(t *testing.T) {
	tr, units, src := renderFirstProgram(t, "testdata/pixel_shuffle_train.json")
	re := regexp.MustCompile(`(?s)// origins: ([^\n]*)\n.*?collapse\((\d+)\)`)
	seen := false
	for _, k := range strings.Split(src.Code, "// kernel ")[1:] {
		m := re.FindStringSubmatch(k)
		if m == nil || !strings.Contains(m[1], "up_1") {
			continue
		}
		seen = true
		if d, _ := strconv.Atoi(m[2]); d > 3 {
			t.Errorf("pixel shuffle kernel (%s) collapses %d loops, want at most 3 ([2, 8, 24] reach 384 iterations)", m[1], d)
		}
	}
	if !seen {
		t.Fatalf("no collapsed kernel holds the pixel shuffle (up_1):\n%s", src.Code)
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graphs[0]
	if !res.OK || len(g.Outputs) != 2 || len(g.Grads) != 6 {
		t.Errorf("compiled pixel shuffle does not match PyTorch (%d outputs, %d grads):\n%s", len(g.Outputs), len(g.Grads), res.Summary())
	}
	checkAllMatch(t, g, "")
}
