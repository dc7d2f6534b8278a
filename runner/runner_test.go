package runner

import (
	"path/filepath"
	"testing"

	"gcdbg/trace"
)

// Every fixture, exported from real PyTorch, must match PyTorch's expected
// outputs, grads and buffers under the accuracy verdict (package verdict).
func TestFixturesMatchPyTorch(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	zoo, _ := filepath.Glob("../stages/testdata/*.json")
	paths = append(paths, zoo...)
	if len(paths) < 10 {
		t.Fatalf("found only %d fixture traces", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			tr, err := trace.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(tr, Options{Runs: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK {
				t.Fatalf("mismatch: %+v", res.Graphs)
			}
			n := 0
			for _, g := range res.Graphs {
				for _, o := range g.Outputs {
					if o.VsExpected == nil {
						t.Errorf("graph %s output %d has no PyTorch comparison", g.Name, o.Index)
					}
					n++
				}
			}
			if n == 0 {
				t.Fatal("no outputs compared")
			}
			// Training fixtures: every PyTorch grad is compared, none skipped.
			for _, g := range tr.Graphs {
				if g.Expected == nil || len(g.Expected.Grads) == 0 {
					continue
				}
				for _, gr := range res.Graphs {
					if gr.Name != g.Name {
						continue
					}
					compared := 0
					for _, gd := range gr.Grads {
						if gd.VsExpected != nil {
							compared++
						}
					}
					if compared != len(g.Expected.Grads) {
						t.Errorf("graph %s: %d of %d PyTorch grads compared", g.Name, compared, len(g.Expected.Grads))
					}
				}
			}
		})
	}
}

// A wrong reference must be caught: the comparison is not a rubber stamp.
func TestPerturbedExpectedIsAMismatch(t *testing.T) {
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	want := tr.Graphs[0].Expected.Outputs[0]
	want.SetFlat(3, want.Flat(3)+1e-3)
	res, err := Run(tr, Options{Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Graphs[0].Outputs[0].VsExpected.Match {
		t.Fatalf("a perturbed expected output still matched: %+v", res.Graphs[0].Outputs[0])
	}
	if e := res.Graphs[0].Outputs[0].VsExpected.MaxAbsErr; e < 9e-4 {
		t.Fatalf("max abs err %g, want about 1e-3", e)
	}
}

// A wrong gradient reference must be caught too.
func TestPerturbedExpectedGradIsAMismatch(t *testing.T) {
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	w := tr.Graphs[0].Expected.Grads["linear_relu_stack.2.weight"]
	w.SetFlat(100, w.Flat(100)+1e-3)
	res, err := Run(tr, Options{Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK {
		t.Fatal("a perturbed grad still matched")
	}
	for _, g := range res.Graphs[0].Grads {
		if want := g.Name == "linear_relu_stack.2.weight"; g.VsExpected.Match == want {
			t.Errorf("grad %s: match=%v", g.Name, g.VsExpected.Match)
		}
	}
}
