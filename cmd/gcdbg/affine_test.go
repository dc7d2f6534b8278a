package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/trace"
)

// The transformer block's compiled graphs have sizes affine in s0 (the
// attention's view folds batch and heads into one dim, 8*s0): the dynamic
// entry lowers them to expressions, its kernels take ks0 and compute 8*ks0
// themselves, and the next size reuses its build. Each call's outputs and
// gradients are checked against the eager interpreter at that size.
func TestRunInputsCompiledDynamicAffine(t *testing.T) {
	if dev, why := runner.DefaultDevice(); dev != "cpu" {
		t.Skip(why)
	}
	var built []string
	orig := runner.BuildProgram
	runner.BuildProgram = func(tr *trace.Trace, u *stages.Unit, lp *stages.LoopProgram, opt runner.Options) (*runner.Program, error) {
		built = append(built, lp.Source.Code)
		return orig(tr, u, lp, opt)
	}
	defer func() { runner.BuildProgram = orig }()
	code, out, errs := run("run", "../../fixtures/transformer_block.json", "--json", "--runs", "1", "--device", "cpu",
		"--input", "x=3x8x32", "--input", "x=5x8x32", "--input", "x=4x8x32")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	var res struct{ Recompiles []runner.GraphRecompiles }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Recompiles) != 1 {
		t.Fatalf("recompiles: %+v", res.Recompiles)
	}
	r := res.Recompiles[0]
	// Trace inputs (static), 3 (static, first change), 5 (dynamic: built
	// once), 4 (hits the dynamic entry: nothing built).
	wantBuilds := []int{2, 2, 2, 0}
	wantKs0 := []int64{0, 0, 5, 4}
	if len(r.Calls) != len(wantBuilds) {
		t.Fatalf("%d calls: %+v", len(r.Calls), r.Calls)
	}
	for i, c := range r.Calls {
		cc := c.Compiled
		if cc == nil {
			t.Fatalf("call %d (%s): no compiled run", i, c.Set)
		}
		if cc.Builds != wantBuilds[i] || cc.Symbols["ks0"] != wantKs0[i] {
			t.Errorf("call %d (%s): builds %d symbols %v; want %d, ks0=%d", i, c.Set, cc.Builds, cc.Symbols, wantBuilds[i], wantKs0[i])
		}
		if len(cc.Outputs) != 1 || len(cc.Grads) != 12 {
			t.Fatalf("call %d: %d outputs, %d grads compared", i, len(cc.Outputs), len(cc.Grads))
		}
		for j, v := range append(cc.Outputs, cc.Grads...) {
			if !v.Match || v.MaxAbsErr > 1e-4 {
				t.Errorf("call %d (%s): comparison %d: %+v", i, c.Set, j, v)
			}
		}
	}
	if !r.Calls[3].Hit || r.Calls[3].Entry != "g0/2" {
		t.Errorf("call 3 should hit g0/2: %+v", r.Calls[3])
	}
	if dyn := r.Cache[2]; dyn.Inputs != "x=f32[s0, 8, 32]" || dyn.Builds != 2 || dyn.Hits != 1 {
		t.Errorf("dynamic entry: %+v", dyn)
	}
	if len(built) != 2+3*2 {
		t.Fatalf("%d programs built, want 8", len(built))
	}
	// The dynamic programs (7th, 8th) compute with multiples of ks0 (the
	// 8*s0 rows of the attention); the static ones have no symbol.
	affine := regexp.MustCompile(`\b\d+\*ks0\b|\bks0\*\d+\b`)
	for i, src := range built {
		if has := strings.Contains(src, "ks0"); has != (i >= 6) {
			t.Errorf("program %d: ks0 in source %v", i, has)
		}
	}
	if !affine.MatchString(built[6]) {
		t.Errorf("the dynamic forward has no size affine in ks0")
	}
}
