package compiler_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gcdbg/compiler"
	"gcdbg/graphtext"
	"gcdbg/interp"
	"gcdbg/stages"
)

// mlpVersion is watch/testdata/mlp.py with its second ReLU replaced by a
// clamp at min: versions differ in one node's constant.
func mlpVersion(t *testing.T, min float64) []*stages.Unit {
	t.Helper()
	src, err := os.ReadFile("../watch/testdata/mlp.py")
	if err != nil {
		t.Fatal(err)
	}
	const relu2 = "h2 = torch.relu(torch.nn.functional.linear(h1, w2, b2))"
	if !strings.Contains(string(src), relu2) {
		t.Fatal("watch/testdata/mlp.py changed: no second ReLU to edit")
	}
	edited := strings.Replace(string(src), relu2,
		fmt.Sprintf("h2 = torch.clamp(torch.nn.functional.linear(h1, w2, b2), min=%g)", min), 1)
	path := filepath.Join(t.TempDir(), "mlp.py")
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := graphtext.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "memory")
	if err != nil {
		t.Fatal(err)
	}
	return units
}

// A one-node edit rebuilds only the objects whose unit text changed: the
// edited kernel's group (and the entry points', if theirs changed); every
// other unit's object is reused, and the relinked library computes what
// the eager interpreter computes on the edited graph.
func TestOneNodeEditRebuildsOneKernel(t *testing.T) {
	cache := t.TempDir()
	var progs []compiler.Program
	build := func(units []*stages.Unit) []*compiler.Artifact {
		progs = nil
		for _, lp := range units[0].Programs {
			progs = append(progs, renderLP(t, units[0], lp).Program())
		}
		arts, err := compiler.BuildAll(progs, compiler.Options{CacheDir: cache, Flags: []string{"-Werror"}})
		if err != nil {
			t.Fatal(err)
		}
		return arts
	}
	start := time.Now()
	first := build(mlpVersion(t, 0.001))
	cold := time.Since(start)
	for _, a := range first {
		if a.Hit || a.ObjectsBuilt == 0 || a.ObjectsCached != 0 {
			t.Errorf("%s: first build: hit %v, %d objects built, %d cached; want a miss building every object", a.Manifest.Role, a.Hit, a.ObjectsBuilt, a.ObjectsCached)
		}
	}
	units := mlpVersion(t, 0.002)
	start = time.Now()
	second := build(units)
	warm := time.Since(start)
	for i, a := range second {
		kernels := 0
		for _, s := range a.Manifest.Steps {
			kernels += len(s.Kernels)
		}
		n := compiler.UnitsForTest(progs[i])
		t.Logf("%s: %d kernels in %d units: %d objects rebuilt, %d reused", a.Manifest.Role, kernels, n, a.ObjectsBuilt, a.ObjectsCached)
		if a.Hit || n < 2 || a.ObjectsBuilt+a.ObjectsCached != n {
			t.Errorf("%s: hit %v, %d+%d objects for %d units (%d kernels + entry points)", a.Manifest.Role, a.Hit, a.ObjectsBuilt, a.ObjectsCached, n, kernels)
		}
		if a.ObjectsBuilt < 1 || a.ObjectsBuilt > 2 || a.ObjectsCached < 1 {
			t.Errorf("%s: one-node edit rebuilt %d objects and reused %d, want the edited kernel's group (and at most the entry points') rebuilt, the rest reused", a.Manifest.Role, a.ObjectsBuilt, a.ObjectsCached)
		}
		if a.Warnings != "" {
			t.Errorf("%s: warnings:\n%s", a.Manifest.Role, a.Warnings)
		}
		// One choice pointer for the whole library: a per-unit copy would
		// leave every kernel reading NULL (its default) whatever the
		// chooser set through the entry unit's gcdbg_set_choices.
		if out, err := exec.Command("nm", a.Library).Output(); err == nil {
			if n := strings.Count(string(out), " gcdbg_choices\n"); n != 1 {
				t.Errorf("%s: %d gcdbg_choices symbols in the linked library, want 1", a.Manifest.Role, n)
			}
		}
		if first[i].Library == a.Library {
			t.Errorf("%s: the edit did not change the program's entry", a.Manifest.Role)
		}
	}
	saved := interp.Inputs{}
	for i, lp := range units[0].Programs {
		ok, err := checkNumbers(t, second[i], units[0], lp, saved)
		if err != nil || !ok {
			t.Errorf("%s: numbers after the incremental build: ok %v, %v", lp.Role, ok, err)
		}
	}
	t.Logf("cold build %v, rebuild after a one-node edit %v", cold.Round(time.Millisecond), warm.Round(time.Millisecond))
}
