package main

import (
	"encoding/json"
	"strings"
	"testing"

	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/trace"
)

func TestRunInputsRecompile(t *testing.T) {
	code, out, errs := run("run", "../../fixtures/mlp.json", "--runs", "1", "--input", "x=4x28x28", "--input", "x=2x28x28", "--input", "x=16x28x28")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s\n%s", code, errs, out)
	}
	i := strings.Index(out, "guards and recompiles, graph g0")
	if i < 0 {
		t.Fatalf("no guards section:\n%s", out)
	}
	// The section in order: each call's verdict, failing guard and action.
	want := []string{
		"call trace's own inputs (x=f32[8, 28, 28]): empty cache",
		"compiling graph g0 (attempt 1)",
		"call --input x=4x28x28 (x=f32[4, 28, 28]): MISS",
		"guard failed  g0/0: tensor 'L['x']' size mismatch at index 0. expected 8, actual 4",
		"recompiling graph g0 (attempt 2)",
		"x dim 0 changed size 8 -> 4 (change 1): compiling static",
		"outputs f32[4, 10]; no PyTorch reference for these inputs (comparison with expected values skipped)",
		"call --input x=2x28x28 (x=f32[2, 28, 28]): MISS",
		"guard failed  g0/1: tensor 'L['x']' size mismatch at index 0. expected 4, actual 2",
		"recompiling graph g0 (attempt 3)",
		"marking x dim 0 dynamic (s0)",
		"compiled g0/2",
		"output 0, symbolic compile vs static compile at these sizes: max abs err 0  match",
		"call --input x=16x28x28 (x=f32[16, 28, 28]): hit g0/2",
		"outputs f32[16, 10]",
		"cache: 3 entries, 3 compiles; dynamic s0 = L['x'].size()[0]",
		"g0/0   x=f32[8, 28, 28]",
		"g0/2   x=f32[s0, 28, 28]", "9 guards  1 hits",
		"size=[None, 28, 28], stride=[784, 28, 1])",
		"2 <= L['x'].size()[0]",
	}
	rest := out[i:]
	for _, w := range want {
		j := strings.Index(rest, w)
		if j < 0 {
			t.Fatalf("missing (or out of order) %q in\n%s", w, out[i:])
		}
		rest = rest[j+len(w):]
	}
	if !strings.Contains(out, "verdict: every output, gradient and buffer matches") {
		t.Errorf("the trace's own comparison is gone:\n%s", out)
	}
}

func TestRunInputsJSON(t *testing.T) {
	code, out, errs := run("run", "../../fixtures/mlp.json", "--json", "--runs", "1", "--input", "x=4x28x28", "--input", "x=2x28x28", "--input", "x=16x28x28")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	var res struct {
		Recompiles []struct {
			Graph string
			Calls []struct {
				Hit      bool
				Entry    string
				Failures []string
				Actions  []string
			}
			Cache []struct {
				ID     string
				Inputs string
				Hits   int
			}
			Compiles int
			Dynamic  map[string]string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Recompiles) != 1 {
		t.Fatalf("recompiles: %+v", res.Recompiles)
	}
	r := res.Recompiles[0]
	if r.Compiles != 3 || len(r.Calls) != 4 || !r.Calls[3].Hit || r.Calls[3].Entry != "g0/2" || r.Dynamic["x:0"] != "s0" ||
		len(r.Cache) != 3 || r.Cache[2].Inputs != "x=f32[s0, 28, 28]" || r.Cache[2].Hits != 1 {
		t.Errorf("recompiles: %+v", r)
	}
}

func TestRunInputsErrors(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{"z=4", `no graph has an input called "z"`},
		{"x=4xq", `"q" is not a size`},
	} {
		code, _, errs := run("run", "../../fixtures/mlp.json", "--runs", "1", "--input", c.arg)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("--input %s: exit %d, stderr %q, want %q", c.arg, code, errs, c.want)
		}
	}
}

// With --device cpu each call runs its entry's compiled programs. The
// dynamic entry (x dim 0 = s0) is built once, its kernels take ks0, and
// the later sizes reuse that build: no new program is built for them.
func TestRunInputsCompiledDynamic(t *testing.T) {
	if dev, why := runner.DefaultDevice(); dev != "cpu" {
		t.Skip(why)
	}
	var built []string // each program built, in order: its source
	orig := runner.BuildProgram
	runner.BuildProgram = func(tr *trace.Trace, u *stages.Unit, lp *stages.LoopProgram, opt runner.Options) (*runner.Program, error) {
		built = append(built, lp.Source.Code)
		return orig(tr, u, lp, opt)
	}
	defer func() { runner.BuildProgram = orig }()
	code, out, errs := run("run", "../../fixtures/mlp.json", "--json", "--runs", "1", "--device", "cpu",
		"--input", "x=4x28x28", "--input", "x=2x28x28", "--input", "x=16x28x28", "--input", "x=5x28x28")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	var res struct {
		Recompiles []runner.GraphRecompiles
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	r := res.Recompiles[0]
	// The main run builds forward and backward, then each of the 3 entries
	// builds its 2 programs once: the 2 calls served by g0/2 build nothing.
	if len(built) != 2+3*2 {
		t.Errorf("%d programs built, want 8", len(built))
	}
	wantBuilds := []int{2, 2, 2, 0, 0}
	wantKs0 := []int64{0, 0, 2, 16, 5}
	for i, c := range r.Calls {
		cc := c.Compiled
		if cc == nil {
			t.Fatalf("call %d (%s): no compiled run", i, c.Set)
		}
		if cc.Builds != wantBuilds[i] || cc.Symbols["ks0"] != wantKs0[i] {
			t.Errorf("call %d (%s): builds %d symbols %v; want %d, ks0=%d", i, c.Set, cc.Builds, cc.Symbols, wantBuilds[i], wantKs0[i])
		}
		if len(cc.Outputs) != 1 || len(cc.Grads) != 6 {
			t.Fatalf("call %d: %d outputs, %d grads compared", i, len(cc.Outputs), len(cc.Grads))
		}
		for j, v := range append(cc.Outputs, cc.Grads...) {
			if !v.Match || v.MaxAbsErr > 1e-5 {
				t.Errorf("call %d (%s): comparison %d: %+v", i, c.Set, j, v)
			}
		}
	}
	if !r.Calls[3].Hit || !r.Calls[4].Hit || r.Calls[3].Entry != "g0/2" || r.Calls[4].Entry != "g0/2" {
		t.Errorf("calls 3 and 4 should hit g0/2: %+v", r.Calls)
	}
	dyn := r.Cache[2]
	if dyn.Inputs != "x=f32[s0, 28, 28]" || dyn.Builds != 2 || dyn.Hits != 2 || len(dyn.Symbols) != 1 || dyn.Symbols[0] != "ks0" {
		t.Errorf("dynamic entry: %+v", dyn)
	}
	// The dynamic entry's programs (built 7th and 8th) read ks0 from the
	// call and loop to it; the static ones have no symbol.
	for i, src := range built {
		has := strings.Contains(src, "const int64_t ks0 = syms[0];") && strings.Contains(src, "x0 < ks0")
		if has != (i >= 6) {
			t.Errorf("program %d: ks0 in source %v", i, has)
		}
	}
}
