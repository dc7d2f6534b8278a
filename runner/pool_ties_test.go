package runner

import (
	"testing"

	"gcdbg/stages"
	"gcdbg/trace"
)

// Max pooling without return_indices over tied maxima and NaNs
// (testdata/models/pool_ties.py, exported from PyTorch in training: values
// from {-1, 0, 1}, two NaNs in a window, all-zero and all -inf windows;
// every pooled result weighted element by element): max_pool3d
// (non-overlapping, padded and overlapping, dilated, unbatched),
// adaptive_max_pool1d/2d/3d (overlapping windows, a None output size,
// unbatched), max_pool2d (its own core op and backward) and max_pool1d.
// PyTorch sends a window's whole gradient to the one index its forward
// picks (the first maximum, the last NaN). Before: max_pool3d and
// adaptive_max_pool1d/2d were maximum chains, whose derivative split it
// between the tied elements, and max_pool2d_backward sent it to the first
// NaN. The other pools are *_with_indices externs with the backward
// adaptive_max_pool3d_backward; outputs and gradients match PyTorch's,
// eager and compiled.
func TestPoolTiesFollowIndices(t *testing.T) {
	tr, err := trace.Load("testdata/pool_ties.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	seen := externNodes(t, units, "max_pool3d_with_indices", "adaptive_max_pool3d_with_indices", "adaptive_max_pool3d_backward", "max_pool2d", "max_pool2d_backward")
	// 4 max_pool3d, 1 max_pool1d and 7 adaptive pools, each with its
	// backward (no maximum chain); 3 max_pool2d
	for op, want := range map[string]int{"max_pool3d_with_indices": 5, "adaptive_max_pool3d_with_indices": 7, "adaptive_max_pool3d_backward": 12, "max_pool2d": 3, "max_pool2d_backward": 3} {
		if seen[op] != want {
			t.Errorf("%d %s nodes in the loop IR, want %d", seen[op], op, want)
		}
	}
	for _, dev := range []string{"eager", "cpu"} {
		res, err := RunUnits(tr, units, Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatal(err)
		}
		g := res.Graphs[0]
		if !res.OK || len(g.Outputs) != 15 || len(g.Grads) != 7 {
			t.Errorf("%s: pooling with ties does not match PyTorch:\n%s", dev, res.Summary())
		}
		for _, o := range g.Outputs {
			if o.VsExpected == nil || !o.VsExpected.Match {
				t.Errorf("%s: output %d vs PyTorch: %+v", dev, o.Index, o.VsExpected)
			}
		}
		for _, gr := range g.Grads {
			if gr.VsExpected == nil || !gr.VsExpected.Match {
				t.Errorf("%s: grad of %s vs PyTorch: %+v", dev, gr.Name, gr.VsExpected)
			}
		}
	}
}
