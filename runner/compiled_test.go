package runner

import (
	"os/exec"
	"path/filepath"
	"testing"

	"gcdbg/trace"
)

// The compiled path (issue 5's first done criterion): every fixture and
// both op zoos compile, and the outputs and grads the generated C computes
// match both gcdbg's eager interpreter and PyTorch's recorded values —
// including the programs with eager fallbacks (sort, cat, pooling,
// slice_scatter in a backward) that write slots the next segment reads.
func TestCompiledFixturesMatchEagerAndPyTorch(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
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
			res, err := Run(tr, Options{Runs: 1, Device: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Backend != "compiled" {
				t.Fatalf("backend %q, want compiled", res.Backend)
			}
			for _, g := range res.Graphs {
				if g.Timing.CompiledMS <= 0 {
					t.Errorf("graph %s: no compiled time", g.Name)
				}
				if len(g.Kernels) == 0 {
					t.Errorf("graph %s: no kernel ran", g.Name)
				}
				if _, ok := g.Stages["build"].([]BuildInfo); !ok {
					t.Errorf("graph %s: no build info", g.Name)
				}
				for _, o := range g.Outputs {
					if o.VsEager == nil || !o.VsEager.Match {
						t.Errorf("graph %s output %d vs eager: %+v", g.Name, o.Index, o.VsEager)
					}
					if o.VsExpected == nil || !o.VsExpected.Match {
						t.Errorf("graph %s output %d vs PyTorch: %+v", g.Name, o.Index, o.VsExpected)
					}
				}
				for _, gd := range g.Grads {
					if gd.VsEager == nil || !gd.VsEager.Match {
						t.Errorf("graph %s grad %s vs eager: %+v", g.Name, gd.Name, gd.VsEager)
					}
					if gd.VsExpected != nil && !gd.VsExpected.Match {
						t.Errorf("graph %s grad %s vs PyTorch: %+v", g.Name, gd.Name, gd.VsExpected)
					}
				}
			}
			// Every PyTorch grad of a training fixture is compared.
			for _, g := range tr.Graphs {
				if g.Expected == nil || len(g.Expected.Grads) == 0 {
					continue
				}
				for _, gr := range res.Graphs {
					if gr.Name != g.Name {
						continue
					}
					n := 0
					for _, gd := range gr.Grads {
						if gd.VsExpected != nil {
							n++
						}
					}
					if n != len(g.Expected.Grads) {
						t.Errorf("graph %s: %d of %d PyTorch grads compared", g.Name, n, len(g.Expected.Grads))
					}
				}
			}
			if !res.OK {
				t.Error("result not OK")
			}
		})
	}
}

// The compiled values really come from the compiled programs: a wrong
// PyTorch reference is still caught on the compiled path.
func TestCompiledPerturbedExpectedIsAMismatch(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := trace.Load("../fixtures/mlp_logsoftmax_sort.json")
	if err != nil {
		t.Fatal(err)
	}
	want := tr.Graphs[0].Expected.Outputs[0]
	want.SetFlat(1, want.Flat(1)+1e-2)
	res, err := Run(tr, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK {
		t.Fatal("a perturbed expected output still matched")
	}
}

// A second run of the same trace finds every program in the build cache.
func TestCompiledSecondRunHitsCache(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	cacheStates := func() []string {
		tr, err := trace.Load("../fixtures/clamp_min.json")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(tr, Options{Runs: 1, Device: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range res.Graphs {
			for _, b := range g.Stages["build"].([]BuildInfo) {
				out = append(out, b.Cache)
			}
		}
		return out
	}
	first, second := cacheStates(), cacheStates()
	if len(first) != 2 || len(second) != 2 {
		t.Fatalf("builds %v then %v, want forward and backward", first, second)
	}
	for i := range first {
		if first[i] != "miss" || second[i] != "hit" {
			t.Errorf("program %d: cache %s then %s, want miss then hit", i, first[i], second[i])
		}
	}
}
