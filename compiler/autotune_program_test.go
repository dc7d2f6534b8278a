package compiler_test

import (
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/stages"
)

// Two GEMMs back to back, as an LSTM cell's (x @ W_ih, h @ W_hh, then the
// gates): autotuned on an empty cache, every GEMM's decision carries the
// program check (compiler/autotune_program.go), which timed the kernels'
// own choices against every kernel on one thread and on all threads as
// whole-program runs; each kernel runs the chosen configuration's choice,
// and where that is not its own, its own is kept as Alone. The check is
// cached: the next run reuses it and times nothing; the kernels stage shows
// it. (Values under every candidate: runner TestChoicesConfirmedInProgramMatch.)
func TestAutotuneConfirmsChoicesInProgram(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("GCDBG_CACHE_DIR", cache)
	t.Setenv("GCDBG_AUTOTUNE", "")
	t.Setenv("GCDBG_CHOICE", "")
	defer compiler.SetLoadForTest(0, true)()
	art, _, u := compileText(t, "two_gemms", `def forward(self, x: "f32[20, 256]", h: "f32[20, 256]", w1: "f32[256, 1024]", w2: "f32[256, 1024]"):
    a = torch.mm(x, w1)
    b = torch.mm(h, w2)
    y = torch.tanh(a + b)
    return (y,)
`)
	in := graphInputs(u, &art.Manifest)
	run := func() *compiler.ExecResult {
		t.Helper()
		res, err := compiler.Exec(art.Library, &art.Manifest, in, compiler.ExecOptions{Runs: 1, Autotune: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := run()
	if len(first.Choices) != 2 {
		t.Fatalf("decisions %+v, want one per GEMM kernel", first.Choices)
	}
	pc := first.Choices[0].Program
	if pc == nil || pc.Cached || len(pc.Configs) < 2 || len(pc.Kernels) != 2 || pc.Rounds < 1 || pc.Burst < 2 {
		t.Fatalf("first run's program check: %+v", pc)
	}
	for i, d := range first.Choices {
		if d.Program != pc || d.Cached {
			t.Errorf("%s: program check %p (want the program's %p), cached %v", d.Kernel, d.Program, pc, d.Cached)
		}
		if got := pc.Configs[pc.Chosen].Choices[i]; got != d.Choice {
			t.Errorf("%s runs choice %d, the chosen configuration %q has %d", d.Kernel, d.Choice, pc.Configs[pc.Chosen].Label, got)
		}
		if own := pc.Configs[0].Choices[i]; (own == d.Choice) != (d.Alone == "") {
			t.Errorf("%s: own choice %d, runs %d, Alone %q", d.Kernel, own, d.Choice, d.Alone)
		}
		if shown := strings.Contains(d.String(), "tunable kernels together (wall time): "); shown != (i == 0) {
			t.Errorf("the program check is shown on the decision's line: %v, want it on the first kernel's only: %s", shown, d.String())
		}
	}
	for _, c := range pc.Configs {
		if c.Seconds <= 0 || len(c.KernelSeconds) != 2 || c.KernelSeconds[0] <= 0 || len(c.Choices) != 2 {
			t.Errorf("configuration %q not timed: %+v", c.Label, c)
		}
	}
	files, _ := filepath.Glob(filepath.Join(cache, "choices", "*", "program-*.json"))
	if len(files) != 1 {
		t.Fatalf("cached program checks: %v, want one", files)
	}
	again := run()
	for i, d := range again.Choices {
		if !d.Cached || d.Program == nil || !d.Program.Cached || d.Program.Chosen != pc.Chosen || d.Choice != first.Choices[i].Choice {
			t.Errorf("second run did not reuse the cached check: %+v (first %+v)", d, first.Choices[i])
		}
	}
	st, err := stages.Lookup("kernels")
	if err != nil {
		t.Fatal(err)
	}
	shown, err := stages.PrintStage(*st, u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown, "tunable kernels together (wall time): "+pc.Configs[0].Label) {
		t.Errorf("the kernels stage does not show the program check:\n%s", shown[:min(len(shown), 2000)])
	}
}
