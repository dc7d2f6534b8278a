package compiler

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The STREAM triad a[i] = b[i] + s*c[i] over three 64 MB float32 arrays,
// built with OpenMP and run through the same worker and shared memory as
// compiled programs: the memory bandwidth a pointwise kernel can hope for
// on this machine, which `gcdbg bench` divides each kernel's GB/s by.

const triadN = 64 << 20 / 4 // floats per 64 MB array

const triadC = `
#include <stdint.h>
#include <omp.h>
void gcdbg_init(char **bufs, const int64_t *syms, double *ks, volatile int32_t *cur) {
	float *a = (float *)bufs[0], *b = (float *)bufs[1], *c = (float *)bufs[2];
	int64_t n = TRIAD_N;
	*cur = 0; double t0 = omp_get_wtime();
	#pragma omp parallel for schedule(static)
	for (int64_t i = 0; i < n; i++) { a[i] = 0; b[i] = 1; c[i] = 2; }
	if (ks) ks[0] += omp_get_wtime() - t0;
}
void gcdbg_triad(char **bufs, const int64_t *syms, double *ks, volatile int32_t *cur) {
	float *a = (float *)bufs[0], *b = (float *)bufs[1], *c = (float *)bufs[2];
	float *check = (float *)bufs[3];
	int64_t n = TRIAD_N; const float s = 3.0f;
	*cur = 1; double t0 = omp_get_wtime();
	#pragma omp parallel for schedule(static)
	for (int64_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
	if (ks) ks[1] += omp_get_wtime() - t0;
	check[0] = a[0]; check[1] = a[n - 1];
}
`

// Triad measures the triad's bandwidth in GB/s (bytes read and written,
// 10^9 per GB): the best of runs, as STREAM reports it — other processes
// on a shared machine only slow a run, and a median under load put
// kernels above 100% of the triad. Its scratch directory is removed.
func Triad(runs int) (float64, error) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return 0, fmt.Errorf("triad: no C compiler (cc) on PATH")
	}
	dir, err := os.MkdirTemp("", "gcdbg-triad-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	src, lib := filepath.Join(dir, "triad.c"), filepath.Join(dir, "triad.so")
	if err := os.WriteFile(src, []byte(triadC), 0o600); err != nil {
		return 0, err
	}
	if out, err := exec.Command(cc, "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", fmt.Sprintf("-DTRIAD_N=%dLL", triadN), "-o", lib, src).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("triad: cc: %v: %s", err, strings.TrimSpace(string(out)))
	}
	n := fmt.Sprint(triadN)
	m := &Manifest{Format: "gcdbg.compiled", Version: 1, Graph: "stream_triad", Role: "inference", Device: "cpu",
		Buffers: []BufferSpec{
			{Name: "a", Kind: "intermediate", DType: "float32", Sizes: []string{n}, Arena: -1},
			{Name: "b", Kind: "intermediate", DType: "float32", Sizes: []string{n}, Arena: -1},
			{Name: "c", Kind: "intermediate", DType: "float32", Sizes: []string{n}, Arena: -1},
			{Name: "check", Kind: "output", DType: "float32", Sizes: []string{"2"}, Arena: -1},
		},
		Steps: []Step{
			{Kind: "segment", Entry: "gcdbg_init", Kernels: []KernelSpec{{Index: 0, Name: "init", Kind: "pointwise"}}},
			{Kind: "segment", Entry: "gcdbg_triad", Kernels: []KernelSpec{{Index: 1, Name: "triad", Kind: "pointwise", Bytes: 3 * 4 * triadN}}},
		},
		Outputs: []int{3},
	}
	res, err := Exec(lib, m, nil, ExecOptions{Runs: runs})
	if err != nil {
		return 0, err
	}
	if a0, an := res.Outputs[0].Flat(0), res.Outputs[0].Flat(1); a0 != 7 || an != 7 {
		return 0, fmt.Errorf("triad: a[0] = %v, a[n-1] = %v, want 7", a0, an)
	}
	secs := res.BestKernelSeconds(1)
	if secs <= 0 {
		return 0, fmt.Errorf("triad: no time recorded")
	}
	return float64(m.Steps[1].Kernels[0].Bytes) / secs / 1e9, nil
}
