package compiler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/graphtext"
	"gcdbg/loopir"
	"gcdbg/stages"
	"gcdbg/tensor"
)

// A float32 GEMM with a fused epilogue big enough for the OpenMP team (80 x
// 512 outputs) has six candidates: OpenBLAS, the generated GEMM or oneDNN's
// sgemm, the epilogue on the team or on one thread. Every candidate runs
// (forced by GCDBG_CHOICE); the one-thread ones compute bit-identical
// results to the team ones where the GEMM's own order does not depend on
// its threads (OpenBLAS splits M and N, the generated GEMM's rows); an
// autotuned run times all six, caches its choice, and the next run reuses
// it without measuring; the kernels stage shows it.
func TestAutotuneGEMMEpilogue(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("GCDBG_CACHE_DIR", cache)
	t.Setenv("GCDBG_AUTOTUNE", "")
	t.Setenv("GCDBG_CHOICE", "")
	path := filepath.Join(t.TempDir(), "mm_epilogue.py")
	src := `def forward(self, x: "f32[80, 256]", w: "f32[256, 512]", b: "f32[512]"):
    mm = torch.mm(x, w)
    y = torch.tanh(mm + b)
    return (y,)
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := graphtext.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "kernels")
	if err != nil {
		t.Fatal(err)
	}
	u := units[0]
	lp := u.Programs[0]
	var k *compiler.KernelSpec
	for i := range lp.Source.Kernels {
		if len(lp.Source.Kernels[i].Alternatives) > 1 {
			k = &lp.Source.Kernels[i]
		}
	}
	if k == nil || len(k.Alternatives) != 6 || k.Key == "" {
		t.Fatalf("no GEMM kernel with six alternatives and a cache key: %+v", lp.Source.Kernels)
	}
	art, err := compiler.Build(lp.Source.Program(), compiler.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]*tensor.Tensor{}
	byName := loopir.InputsFromGraph(lp.Loops)
	for _, b := range art.Manifest.Buffers {
		if in, ok := byName[b.Name]; ok {
			key := b.Target
			if key == "" {
				key = b.Name
			}
			inputs[key] = in
		}
	}
	run := func(opt compiler.ExecOptions) *compiler.ExecResult {
		t.Helper()
		res, err := compiler.Exec(art.Library, &art.Manifest, inputs, opt)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	forced := map[string][]byte{}
	for _, c := range []string{"0", "1", "2", "3", "8", "9"} {
		t.Setenv("GCDBG_CHOICE", c)
		res := run(compiler.ExecOptions{NoKernelTimes: true})
		if len(res.Choices) != 1 || res.Choices[0].Label == "" {
			t.Fatalf("GCDBG_CHOICE=%s: decisions %+v", c, res.Choices)
		}
		forced[c] = res.Outputs[0].Bytes()
	}
	t.Setenv("GCDBG_CHOICE", "")
	if string(forced["0"]) != string(forced["1"]) || string(forced["2"]) != string(forced["3"]) {
		t.Error("running the epilogue on one thread changed the result")
	}
	// The generated GEMM against OpenBLAS is judged by the runner's verdict
	// (runner/autotune_test.go); here only that it computed something else
	// than zeros.
	for _, c := range []string{"2", "8", "9"} {
		if string(forced[c]) == string(make([]byte, len(forced[c]))) {
			t.Errorf("GEMM candidate %s wrote nothing", c)
		}
	}
	def := run(compiler.ExecOptions{NoKernelTimes: true})
	if len(def.Choices) != 0 || string(def.Outputs[0].Bytes()) != string(forced["0"]) {
		t.Errorf("without autotuning: decisions %+v (want none) or another result than choice 0", def.Choices)
	}
	// A steady load for the two runs: a choice measured busy is measured
	// again on a quiet machine (loadavg.go), which a real machine's moving
	// load could trigger between them.
	defer compiler.SetLoadForTest(0, true)()
	first := run(compiler.ExecOptions{Runs: 1, Autotune: true})
	if len(first.Choices) != 1 || first.Choices[0].Cached || len(first.Choices[0].Times) != 6 {
		t.Fatalf("first autotuned run: %+v", first.Choices)
	}
	for _, ct := range first.Choices[0].Times {
		if ct.Seconds <= 0 {
			t.Errorf("candidate %s has no time", ct.Label)
		}
	}
	again := run(compiler.ExecOptions{Runs: 1, Autotune: true})
	if len(again.Choices) != 1 || !again.Choices[0].Cached || again.Choices[0].Choice != first.Choices[0].Choice {
		t.Fatalf("second run did not reuse the cached choice %+v: %+v", first.Choices, again.Choices)
	}
	st, err := stages.Lookup("kernels")
	if err != nil {
		t.Fatal(err)
	}
	shown, err := stages.PrintStage(*st, u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown, "choices by measurement") || !strings.Contains(shown, first.Choices[0].Label+" (choice") ||
		!strings.Contains(shown, "median of 5 rounds") {
		t.Errorf("the kernels stage does not show the choice:\n%s", shown[:min(len(shown), 1500)])
	}
	t.Setenv("GCDBG_AUTOTUNE", "0")
	off := run(compiler.ExecOptions{Runs: 1, Autotune: compiler.AutotuneEnabled()})
	if len(off.Choices) != 0 {
		t.Errorf("GCDBG_AUTOTUNE=0 still chose: %+v", off.Choices)
	}
}
