package runner

import (
	"os/exec"
	"testing"

	"gcdbg/loopir"
)

// A cat or stack of more than 64 inputs (testdata/models/cat_long.py,
// exported from PyTorch in training: 100 recurrent steps stacked, as an
// unrolled nn.GRU over 100 frames stacks its states; 70 uneven slices cat
// in reverse; a promoting 66-way cat) lowers to a tree of compiled cat
// nodes, no eager fallback (it was one per long cat, and examples/unseen4's
// kws_gru ran its two GRU stacks in the interpreter), and the compiled run
// matches PyTorch's outputs and gradients.
func TestLongCatCompilesAndMatchesPyTorch(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, units := loadUnits(t, "testdata/cat_long.json")
	for _, lp := range units[0].Programs {
		for _, n := range lp.Loops.Nodes {
			if n.Kind == loopir.Fallback {
				t.Errorf("%s: node %s (%s) is an eager fallback", lp.Role, n.IRNode, n.Op)
			}
		}
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "compiled" || !res.OK {
		t.Fatalf("backend %q: does not match PyTorch:\n%s", res.Backend, res.Summary())
	}
	g := res.Graphs[0]
	if len(g.Fallback) != 0 || len(g.Outputs) != 3 || len(g.Grads) != 3 {
		t.Errorf("fallbacks %v, %d outputs, %d grads compared; want none, 3, 3", g.Fallback, len(g.Outputs), len(g.Grads))
	}
}
