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
	matchesPyTorchEverywhere(t, "testdata/zero_norm_grads.json", 4)
}

// Hardtanh, ReLU6 and Hardsigmoid pass no gradient at their bounds, as
// PyTorch's backward (testdata/models/hard_bounds_grads.py: zero- and
// one-initialised gates, a ReLU6 of a ReLU, inputs at every bound); they
// took the inside slope there (review10, finding 4).
func TestHardActivationBoundsMatchPyTorch(t *testing.T) {
	matchesPyTorchEverywhere(t, "testdata/hard_bounds_grads.json", 5)
}

// matchesPyTorchEverywhere runs a trace eager and compiled and checks that
// every output, gradient (nGrads of them) and buffer matches PyTorch's and
// the eager interpreter's, none NaN. It returns the compiled run's graph
// (nil where no C compiler is found).
func matchesPyTorchEverywhere(t *testing.T, path string, nGrads int) *GraphResult {
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	devices := []string{"eager"}
	if _, why := DefaultDevice(); why == "" {
		devices = append(devices, "cpu")
	}
	var compiled *GraphResult
	for _, device := range devices {
		res, err := Run(tr, Options{Runs: 1, Device: device})
		if err != nil {
			t.Fatal(err)
		}
		g := res.Graphs[0]
		if device == "cpu" {
			compiled = &g
		}
		if len(g.Grads) != nGrads {
			t.Fatalf("%s: %d grads, want %d", device, len(g.Grads), nGrads)
		}
		checkAllMatch(t, g, " ("+device+")")
		for _, gd := range g.Grads {
			if gd.VsExpected != nil && (math.IsNaN(gd.VsExpected.MaxAbsErr) || math.IsInf(gd.VsExpected.MaxAbsErr, 0)) {
				t.Errorf("%s: grad %s: max abs err %v", device, gd.Name, gd.VsExpected.MaxAbsErr)
			}
		}
	}
	return compiled
}

// Modules named output (Meta's LLaMA LM head) and tangents_1 train: the
// partition's output node and the joint's tangents take names no node has
// (testdata/models/reserved_names.py; review10 finding 8: "name used twice").
func TestModulesNamedLikePipelineNodesTrain(t *testing.T) {
	matchesPyTorchEverywhere(t, "testdata/reserved_names.json", 4)
}

// Item assignment with an Ellipsis trains, eager and compiled: basic
// subscripts become slice/select scatters, and index_put's fallback gets
// the Ellipsis and constant slices of its subscript encoded
// (testdata/models/setitem_ellipsis.py; review10 finding 9).
func TestSetitemWithEllipsisTrains(t *testing.T) {
	matchesPyTorchEverywhere(t, "testdata/setitem_ellipsis.json", 2)
}

// Long float rows sort by radix (render/sort.go) in PyTorch's stable
// order, ties (±0 among them) in index order, NaN above +Inf, both
// directions, along a strided dim too: every output matches PyTorch's, and
// the indices exactly (testdata/models/sort_long_rows.py; the merge sort
// took 19 ms for top-p filtering's 64 rows of 8192: review10 finding 11).
func TestLongRowsSortAsPyTorch(t *testing.T) {
	g := matchesPyTorchEverywhere(t, "testdata/sort_long_rows.json", 1)
	if g == nil {
		t.Skip("no C compiler: the radix sort is compiled code")
	}
	for _, o := range g.Outputs {
		if o.DType == "int64" && (o.VsExpected == nil || o.VsExpected.MaxAbsErr != 0) {
			t.Errorf("indices output %d differs from PyTorch's: %+v", o.Index, o.VsExpected)
		}
	}
}
