package render_test

import (
	"path/filepath"
	"testing"

	"gcdbg/render"
	"gcdbg/stages"
	"gcdbg/trace"
)

// loadUnits takes a trace through the memory-planning stage.
func loadUnits(t testing.TB, path string) []*stages.Unit {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "memory")
	if err != nil {
		t.Fatal(err)
	}
	return units
}

func renderLP(t testing.TB, u *stages.Unit, lp *stages.LoopProgram, d render.Dialect, opts render.Options) *render.Source {
	t.Helper()
	opts.Trace, opts.Graph, opts.Role = filepath.Base(u.Trace.Path), u.Captured.Name, lp.Role
	src, err := render.Render(lp.Loops, lp.Schedule.Kernels, lp.Memory, d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func allTraces() []string {
	paths, _ := filepath.Glob("../fixtures/*.json")
	zoo, _ := filepath.Glob("../stages/testdata/*.json")
	return append(paths, zoo...)
}
