package runner

import (
	"testing"

	"gcdbg/loopir"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Max pooling with indices, max_unpool and integer average pooling compile
// (testdata/models/pool_indices.py, exported from PyTorch in training):
// windows with two NaNs (PyTorch's index is the last) and an all -inf
// block, an unpool with repeated indices, a dilated 1-D pool with
// ceil_mode, an adaptive 3-D pool with a None output size, avg_pool3d with
// ceil_mode and an int64 avg_pool2d. Every pooling node is a loop IR
// extern (no eager fallback anywhere), and the compiled program matches
// PyTorch's outputs (indices included) and gradients.
func TestPoolIndicesCompile(t *testing.T) {
	tr, err := trace.Load("testdata/pool_indices.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	ops := []string{"max_pool3d_with_indices", "adaptive_max_pool3d_with_indices", "max_unpool3d", "adaptive_max_pool3d_backward", "avg_pool2d"}
	seen := externNodes(t, units, ops...)
	for _, op := range ops {
		if seen[op] == 0 {
			t.Errorf("no %s extern", op)
		}
	}
	for _, dev := range []string{"eager", "cpu"} {
		res, err := RunUnits(tr, units, Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK || len(res.Graphs[0].Outputs) != 9 || len(res.Graphs[0].Grads) != 3 {
			t.Errorf("%s: pooling does not match PyTorch:\n%s", dev, res.Summary())
		}
		for _, o := range res.Graphs[0].Outputs {
			if o.VsExpected == nil || !o.VsExpected.Match {
				t.Errorf("%s: output %d vs PyTorch: %+v", dev, o.Index, o.VsExpected)
			}
		}
	}
}

// externNodes counts the loop IR nodes of each of ops in the first unit's
// programs, failing t where one is not an extern or any node is an eager
// fallback.
func externNodes(t *testing.T, units []*stages.Unit, ops ...string) map[string]int {
	t.Helper()
	want := map[string]bool{}
	for _, op := range ops {
		want[op] = true
	}
	seen := map[string]int{}
	for _, lp := range units[0].Programs {
		for _, n := range lp.Loops.Nodes {
			if n.Kind == loopir.Fallback {
				t.Errorf("%s graph: node %s (%s) is an eager fallback", lp.Role, n.Name, n.Op)
			}
			if want[n.Op] {
				if n.Kind != loopir.Extern {
					t.Errorf("%s graph: %s node %s is %s, want an extern", lp.Role, n.Op, n.Name, n.Kind)
				}
				seen[n.Op]++
			}
		}
	}
	return seen
}
