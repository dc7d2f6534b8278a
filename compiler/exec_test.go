package compiler

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"gcdbg/tensor"
)

// The tests' compiled programs are small C sources written by hand to the
// entry ABI (manifest.go), built with cc; the test binary is its own worker.

func TestMain(m *testing.M) {
	ServeIfWorker()
	before := shmDirs()
	code := m.Run()
	pid := WorkerPID()
	Shutdown()
	if pid != 0 && syscall.Kill(pid, 0) == nil {
		println("worker", pid, "still runs after Shutdown")
		code = 1
	}
	if after := shmDirs(); after > before {
		println("leaked", after-before, "shared memory directories")
		code = 1
	}
	os.Exit(code)
}

func shmDirs() int {
	n := 0
	for _, base := range []string{"/dev/shm", os.TempDir()} {
		// Only this process's files: other gcdbg processes may run.
		m, _ := filepath.Glob(filepath.Join(base, fmt.Sprintf("gcdbg-exec-%d-*", os.Getpid())))
		n += len(m)
	}
	return n
}

// buildC compiles src into a shared object, skipping without a C compiler.
func buildC(t *testing.T, src string) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	dir := t.TempDir()
	c, lib := filepath.Join(dir, "k.c"), filepath.Join(dir, "lib.so")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O2", "-fPIC", "-shared", "-o", lib, c).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return lib
}

// The program: y = relu(x * w) (kernel 0, into an arena intermediate),
// then a fallback sort of y seen transposed (2x3 -> 3x2, descending), then
// z = sorted + 1 (kernel 1). x is [2, ks0] so the size is a symbol.
const progC = `
#include <stdint.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
void gcdbg_seg0(char **bufs, const int64_t *syms, double *ks, volatile int32_t *cur) {
	const float *x = (const float *)bufs[0], *w = (const float *)bufs[1];
	float *y = (float *)bufs[2];
	*cur = 0; double t0 = now();
	for (int64_t i = 0; i < 2 * syms[0]; i++) { float v = x[i] * w[i % syms[0]]; y[i] = v > 0 ? v : 0; }
	if (ks) ks[0] += now() - t0;
}
void gcdbg_seg1(char **bufs, const int64_t *syms, double *ks, volatile int32_t *cur) {
	const float *s = (const float *)bufs[3]; float *z = (float *)bufs[5];
	*cur = 1; double t0 = now();
	for (int64_t i = 0; i < 2 * syms[0]; i++) z[i] = s[i] + 1;
	if (ks) ks[1] += now() - t0;
}
void gcdbg_crash(char **bufs, const int64_t *syms, double *ks, volatile int32_t *cur) {
	*cur = 7; *(volatile int *)0 = 0;
}
void gcdbg_hang(char **bufs, const int64_t *syms, double *ks, volatile int32_t *cur) {
	*cur = 8; for (;;) { __asm__ volatile(""); }
}
`

func slot(i int) *int { return &i }

func testManifest() *Manifest {
	return &Manifest{
		Format: "gcdbg.compiled", Version: 1, Graph: "g0", Role: "inference", Device: "cpu",
		Symbols: []string{"ks0"},
		Buffers: []BufferSpec{
			{Name: "arg0_1", Kind: "input", DType: "float32", Sizes: []string{"2", "ks0"}, Target: "x", Arena: -1},
			{Name: "w", Kind: "constant", DType: "float32", Sizes: []string{"ks0"}, Target: "w", Arena: -1},
			{Name: "buf0", Kind: "intermediate", DType: "float32", Sizes: []string{"2", "ks0"}, Arena: 0},
			{Name: "buf1", Kind: "intermediate", DType: "float32", Sizes: []string{"ks0", "2"}, Arena: 64},
			{Name: "buf2", Kind: "intermediate", DType: "int64", Sizes: []string{"ks0", "2"}, Arena: -1},
			{Name: "buf3", Kind: "output", DType: "float32", Sizes: []string{"ks0", "2"}, Arena: -1},
		},
		Steps: []Step{
			{Kind: "segment", Entry: "gcdbg_seg0", Kernels: []KernelSpec{{Index: 0, Name: "k0_relu_mul", Kind: "pointwise", Origins: []string{"mul", "relu"}, Bytes: 72}}},
			{Kind: "fallback", Op: "aten.sort", IRNode: "sort", Writes: []int{3, 4}, Args: []ArgSpec{
				{Slot: slot(2), Sizes: []int64{3, 2}, Strides: []int64{1, 3}},
				{IsConst: true, Const: int64(-1)}, {IsConst: true, Const: true}, {IsConst: true, Const: false}}},
			{Kind: "segment", Entry: "gcdbg_seg1", Kernels: []KernelSpec{{Index: 1, Name: "k1_add", Kind: "pointwise", Origins: []string{"add"}}}},
		},
		Inputs: []int{0}, Outputs: []int{5, 4},
	}
}

func testInputs() map[string]*tensor.Tensor {
	return map[string]*tensor.Tensor{
		"x": tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{1, -2, 3, 4, 5, -6}),
		"w": tensor.FromFloats(tensor.Float32, []int{3}, []float64{2, 1, 0.5}),
	}
}

func TestExecSegmentsAndFallback(t *testing.T) {
	lib := buildC(t, progC)
	const runs = 20
	res, err := Exec(lib, testManifest(), testInputs(), ExecOptions{Runs: runs})
	if err != nil {
		t.Fatal(err)
	}
	// y = relu(x*w) = [[2,0,1.5],[8,5,0]]; transposed rows [2,8],[0,5],[1.5,0]
	// sorted descending: [8,2],[5,0],[1.5,0]; +1.
	want := []float64{9, 3, 6, 1, 2.5, 1}
	z := res.Outputs[0]
	if len(z.Shape) != 2 || z.Shape[0] != 3 || z.Shape[1] != 2 {
		t.Fatalf("output shape %v, want [3 2]", z.Shape)
	}
	for i, w := range want {
		if got := z.Flat(i); got != w {
			t.Errorf("z[%d] = %v, want %v", i, got, w)
		}
	}
	wantIdx := []int64{1, 0, 1, 0, 0, 1}
	for i, w := range wantIdx {
		if got := res.Outputs[1].FlatInt(i); got != w {
			t.Errorf("indices[%d] = %v, want %v", i, got, w)
		}
	}
	if len(res.Seconds) != runs || len(res.KernelSeconds) != runs || len(res.KernelSeconds[0]) != 2 {
		t.Fatalf("timings: %d runs, kernel seconds %v", len(res.Seconds), res.KernelSeconds)
	}
	// Each run starts from zero: a kernel's time never accumulates across
	// runs (the C code adds to its slot). The kernel times come from a
	// second, timed pass, so they are compared with the untimed pass's
	// median run, not run by run (microseconds: either pass may see a
	// slow run): accumulated, the last run's would be about 20 runs'.
	med := append([]float64(nil), res.Seconds...)
	sort.Float64s(med)
	for r, ks := range res.KernelSeconds {
		if ks[0] <= 0 {
			t.Errorf("run %d: kernel 0 took %v s", r, ks[0])
		}
	}
	if last := res.KernelSeconds[runs-1][0]; last > 5*med[runs/2] {
		t.Errorf("the last run's kernel 0 took %v s, the median run %v s: times accumulate", last, med[runs/2])
	}
	if res.FallbackSeconds[0] <= 0 {
		t.Errorf("fallback time %v", res.FallbackSeconds[0])
	}
}

// Without kernel times the kernels' clocks are off (kernel_seconds is
// NULL) and the same numbers come out of runs that share one input fill.
func TestExecNoKernelTimes(t *testing.T) {
	lib := buildC(t, progC)
	res, err := Exec(lib, testManifest(), testInputs(), ExecOptions{Runs: 4, NoKernelTimes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Seconds) != 4 || len(res.KernelSeconds) != 0 {
		t.Fatalf("timings: %d runs, kernel seconds %v", len(res.Seconds), res.KernelSeconds)
	}
	if got := res.Outputs[0].Flat(0); got != 9 {
		t.Errorf("z[0] = %v, want 9", got)
	}
}

func TestExecCrashNamesKernelAndRecovers(t *testing.T) {
	lib := buildC(t, progC)
	m := testManifest()
	m.Steps = append(m.Steps[:1:1], Step{Kind: "segment", Entry: "gcdbg_crash", Kernels: []KernelSpec{
		{Index: 7, Name: "k7_bad_load", Kind: "pointwise", Line: 42, Origins: []string{"div"}, Stack: []string{"model.py:12: y = x / self.scale"}}}})
	if _, err := Exec(lib, testManifest(), testInputs(), ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	pid := WorkerPID()
	_, err := Exec(lib, m, testInputs(), ExecOptions{})
	var ee *ExecError
	if !errors.As(err, &ee) {
		t.Fatalf("crash: got %v, want an ExecError", err)
	}
	if testing.Verbose() {
		t.Log(err)
	}
	if ee.Kernel == nil || ee.Kernel.Name != "k7_bad_load" {
		t.Fatalf("crash blamed on %+v, want k7_bad_load", ee.Kernel)
	}
	for _, s := range []string{"k7_bad_load", "model.py:12: y = x / self.scale", "line 42", "worker died", "SIGSEGV", `graph "g0"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the crashed worker %d still runs", pid)
	}
	// The next program gets a fresh worker and runs normally.
	res, err := Exec(lib, testManifest(), testInputs(), ExecOptions{})
	if err != nil {
		t.Fatalf("after a crash: %v", err)
	}
	if got := res.Outputs[0].Flat(0); got != 9 {
		t.Errorf("after a crash: z[0] = %v, want 9", got)
	}
	if p := WorkerPID(); p == pid || p == 0 {
		t.Errorf("worker pid %d after the crash, was %d: want a fresh one", p, pid)
	}
}

func TestExecTimeoutKillsWorker(t *testing.T) {
	lib := buildC(t, progC)
	m := testManifest()
	m.Steps = []Step{{Kind: "segment", Entry: "gcdbg_hang", Kernels: []KernelSpec{{Index: 8, Name: "k8_forever", Kind: "reduction", Stack: []string{"model.py:3: s = x.sum()"}}}}}
	t0 := time.Now()
	_, err := Exec(lib, m, testInputs(), ExecOptions{Timeout: 300 * time.Millisecond})
	if err == nil {
		t.Fatal("an endless kernel returned")
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the time limit of 300ms took %v", d)
	}
	for _, s := range []string{"k8_forever", "did not finish within 300ms", "model.py:3"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if _, err := Exec(lib, testManifest(), testInputs(), ExecOptions{}); err != nil {
		t.Fatalf("after a timeout: %v", err)
	}
}

func TestExecBadInputs(t *testing.T) {
	lib := buildC(t, progC)
	in := testInputs()
	delete(in, "w")
	if _, err := Exec(lib, testManifest(), in, ExecOptions{}); err == nil || !strings.Contains(err.Error(), `"w"`) {
		t.Errorf("missing constant: %v", err)
	}
	in = testInputs()
	in["w"] = tensor.FromFloats(tensor.Float32, []int{4}, []float64{1, 2, 3, 4})
	if _, err := Exec(lib, testManifest(), in, ExecOptions{}); err == nil || !strings.Contains(err.Error(), "ks0") {
		t.Errorf("inconsistent symbol: %v", err)
	}
	m := testManifest()
	m.Steps[0].Entry = "gcdbg_nope"
	if _, err := Exec(lib, m, testInputs(), ExecOptions{}); err == nil || !strings.Contains(err.Error(), "gcdbg_nope") {
		t.Errorf("missing entry: %v", err)
	}
	m = testManifest()
	m.Steps[1].Op = "aten.nope"
	if _, err := Exec(lib, m, testInputs(), ExecOptions{}); err == nil || !strings.Contains(err.Error(), "aten.nope") {
		t.Errorf("unknown fallback op: %v", err)
	}
	m = testManifest()
	m.Steps[1].Args[0].Strides = []int64{1, 30}
	if _, err := Exec(lib, m, testInputs(), ExecOptions{}); err == nil || !strings.Contains(err.Error(), "reaches past") {
		t.Errorf("view out of bounds: %v", err)
	}
	if _, err := Exec(filepath.Join(t.TempDir(), "missing.so"), testManifest(), testInputs(), ExecOptions{}); err == nil || !strings.Contains(err.Error(), "missing.so") {
		t.Errorf("missing library: %v", err)
	}
}

func TestDecodeConst(t *testing.T) {
	v, err := decodeConst(map[string]any{"float": "-inf"}, 0)
	if err != nil || !math.IsInf(v.(float64), -1) {
		t.Errorf("-inf: %v %v", v, err)
	}
	if _, err := decodeConst(map[string]any{"node": "x"}, 0); err == nil {
		t.Error("a node reference is not a constant")
	}
}

func TestTriad(t *testing.T) {
	if testing.Short() {
		t.Skip("192 MB of arrays")
	}
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	gbps, err := Triad(3)
	if err != nil {
		t.Fatal(err)
	}
	if gbps < 0.1 || gbps > 10000 {
		t.Errorf("triad bandwidth %v GB/s is implausible", gbps)
	}
	t.Logf("STREAM triad: %.1f GB/s", gbps)
}
