package stress

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"gcdbg/runner"
)

// stressCount is how many random traces TestRandomTracesAgree runs: a few
// in CI's `go test`, $GCDBG_STRESS of them under `make stress` (1000).
func stressCount() int {
	if n, err := strconv.Atoi(os.Getenv("GCDBG_STRESS")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 3
	}
	return 12
}

// Random valid traces (Random: pointwise, broadcasting, reductions, clamps
// on random shapes) through the whole pipeline, the generated C and the
// eager interpreter: every output agrees under the run's verdict. A
// failure names the seed; `GCDBG_STRESS_SEED=N go test -run RandomTraces`
// replays it, and the graph text is printed.
func TestRandomTracesAgree(t *testing.T) {
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	first, n := uint64(1), stressCount()
	if s, err := strconv.ParseUint(os.Getenv("GCDBG_STRESS_SEED"), 10, 64); err == nil {
		first, n = s, 1
	}
	for seed := first; seed < first+uint64(n); seed++ {
		size := 4 + int(seed*7919%40)
		text := Random(seed, size)
		name := fmt.Sprintf("stress_%d", seed)
		tr, err := Load(text, name)
		if err != nil {
			t.Fatalf("seed %d: the generator made an invalid graph: %v\n%s", seed, err, text)
		}
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: "cpu"})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		if res.Backend != "compiled" {
			t.Fatalf("seed %d: not compiled (backend %q)", seed, res.Backend)
		}
		if !res.OK {
			for _, g := range res.Graphs {
				for _, o := range g.Outputs {
					if o.VsEager != nil && !o.VsEager.Match {
						t.Errorf("seed %d: output %d: compiled differs from eager: %s", seed, o.Index, o.VsEager.Why)
					}
				}
			}
			t.Fatalf("seed %d: verdict is a mismatch\n%s", seed, text)
		}
	}
}

// The generator is deterministic and makes graphs of the size asked for.
func TestRandomIsDeterministic(t *testing.T) {
	if Random(7, 20) != Random(7, 20) || Random(7, 20) == Random(8, 20) {
		t.Fatal("Random is not a function of its seed")
	}
	tr, err := Load(Random(7, 20), "r")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.Graphs[0].Nodes); n < 20 {
		t.Fatalf("%d nodes for 20 ops", n)
	}
}
