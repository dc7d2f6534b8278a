package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/render"
)

func needCC(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
}

type compiledJSON struct {
	OK     bool `json:"ok"`
	Graphs []struct {
		Stages struct {
			Build []struct {
				Role  string  `json:"role"`
				Cache string  `json:"cache"`
				MS    float64 `json:"ms"`
			} `json:"build"`
		} `json:"stages"`
		Timing struct {
			CompiledMS float64 `json:"compiled_ms"`
		} `json:"timing"`
		Kernels []struct {
			Name  string   `json:"name"`
			Role  string   `json:"role"`
			MS    float64  `json:"ms"`
			GBps  float64  `json:"gbps"`
			Nodes []string `json:"nodes"`
		} `json:"kernels"`
		Fallback []string `json:"fallback_nodes"`
	} `json:"graphs"`
}

func runCompiledJSON(t *testing.T, args ...string) compiledJSON {
	t.Helper()
	code, out, errs := run(append([]string{"run", "--json", "--runs", "2"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res compiledJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return res
}

// run --json on the compiled path: the spec's timing.compiled_ms, kernels
// and fallback_nodes, and a build entry per program that says the second
// run found it in the cache.
func TestRunCompiledJSONAndCacheHit(t *testing.T) {
	needCC(t)
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	first := runCompiledJSON(t, "--device", "cpu", "../../stages/testdata/zoo_modules.json")
	second := runCompiledJSON(t, "--device", "cpu", "../../stages/testdata/zoo_modules.json")
	if !first.OK || !second.OK || len(first.Graphs) != 1 {
		t.Fatalf("not ok: %+v", first)
	}
	g := second.Graphs[0]
	if g.Timing.CompiledMS <= 0 || len(g.Kernels) == 0 || g.Kernels[0].MS <= 0 {
		t.Errorf("no compiled timing: %+v", g)
	}
	if len(g.Fallback) != 0 {
		t.Errorf("every op of the module zoo compiles (pooling and conv included), yet eager fallbacks ran: %+v", g.Fallback)
	}
	if b := first.Graphs[0].Stages.Build; len(b) != 1 || b[0].Cache != "miss" {
		t.Errorf("first run builds %+v, want one miss", b)
	}
	if b := g.Stages.Build; len(b) != 1 || b[0].Cache != "hit" {
		t.Errorf("second run builds %+v, want one hit", b)
	}
	// The human output has the compiled time and the kernel table.
	code, out, errs := run("run", "--device", "cpu", "--runs", "2", "../../fixtures/mlp_logsoftmax_sort.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The producer's recorded PyTorch time is shown with where it came from,
	// never divided into the compiled time (two processes, two moments).
	if strings.Contains(out, "x the recorded") {
		t.Errorf("human output divides the compiled time by the recorded PyTorch time:\n%s", out)
	}
	for _, want := range []string{"compiled ", "(recorded at export, not compared: `gcdbg bench` times both live)", "kernels (median of 2 runs)", "GB/s", "build: inference "} {
		if !strings.Contains(out, want) {
			t.Errorf("human output lacks %q:\n%s", want, out)
		}
	}
}

// A kernel that crashes (the renderer's test hook) takes down only the
// worker: gcdbg exits 2 naming the kernel and the user's source line, and
// the next run in the same process works.
func TestRunCrashingKernelNamesItAndSurvives(t *testing.T) {
	needCC(t)
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	t.Setenv(render.CrashKernelEnv, "1")
	code, _, errs := run("run", "--device", "cpu", "--runs", "1", "../../fixtures/mlp.json")
	if code != 2 {
		t.Fatalf("exit %d, want 2; stderr %s", code, errs)
	}
	for _, want := range []string{"kernel 1 k1_", "mlp.py:23", "generated source line", "the worker died", "SIGSEGV"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q: %s", want, errs)
		}
	}
	os.Unsetenv(render.CrashKernelEnv)
	if code, _, errs := run("run", "--device", "cpu", "--runs", "1", "../../fixtures/mlp.json"); code != 0 {
		t.Fatalf("after the crash: exit %d: %s", code, errs)
	}
}

// `gcdbg run DIR` runs what `gcdbg compile` wrote without compiling: with
// an empty cache and no usable C compiler it still runs and matches.
func TestRunCompiledDirWithoutCC(t *testing.T) {
	needCC(t)
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := run("compile", "../../fixtures/clamp_min.json", "-o", dir); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, errs)
	}
	empty := t.TempDir()
	t.Setenv("GCDBG_CACHE_DIR", empty)
	t.Setenv("CC", "/nonexistent/cc")
	t.Setenv("PATH", "/nonexistent")
	res := runCompiledJSON(t, dir)
	if !res.OK || len(res.Graphs) != 1 {
		t.Fatalf("not ok: %+v", res)
	}
	b := res.Graphs[0].Stages.Build
	if len(b) != 2 || b[0].Cache != "aot" || b[1].Cache != "aot" {
		t.Errorf("builds %+v, want forward and backward loaded from the directory", b)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("the cache got %d entries: something was built", len(ents))
	}
	// A tampered library is refused.
	idx, err := compiler.ReadAOTIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, idx.Programs[0].Library), []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run("run", dir); code != 2 || !strings.Contains(errs, "sha256") {
		t.Errorf("tampered: exit %d, stderr %s", code, errs)
	}
}

// A compiled directory whose programs keep an eager fallback with integer
// constants (the dim of a scatter_add whose index is narrower than self,
// testdata/scatter_narrow.json; an Embedding's backward, this test's trace
// before, compiles its scatter_add now) runs: the manifest read back keeps
// 1 an int, not the float 1.0.
func TestRunCompiledDirWithIntConstFallback(t *testing.T) {
	needCC(t)
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := run("compile", "testdata/scatter_narrow.json", "-o", dir); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, errs)
	}
	res := runCompiledJSON(t, dir)
	if !res.OK {
		t.Fatalf("not ok: %+v", res)
	}
	if fb := res.Graphs[0].Fallback; len(fb) == 0 || !strings.Contains(strings.Join(fb, " "), "scatter_add") {
		t.Fatalf("test premise: scatter_narrow runs scatter_add as an eager fallback with an int constant (fallbacks now: %v); if it compiles, point this test at another fallback op", fb)
	}
}
