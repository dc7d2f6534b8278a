package compiler

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SgemmPeak measures OpenBLAS's cblas_sgemm on a 1024×1024×1024 product
// through the same worker and shared memory as compiled programs: the
// compute roof that `gcdbg bench` divides each trace's GFLOP/s by (the
// triad is the memory roof). OpenBLAS is found as the generated GEMM code
// finds it (dlopen of libopenblas.so.0); without it the error says so.

const peakN = 1024

const peakC = `
#include <dlfcn.h>
#include <stdint.h>
#include <omp.h>
typedef void (*sgemm_t)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
static sgemm_t sgemm;
void gcdbg_init(char **bufs, const int64_t *syms, double *ks, volatile int32_t *cur) {
	float *a = (float *)bufs[0], *b = (float *)bufs[1];
	float *check = (float *)bufs[3];
	void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!h) h = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
	if (h) sgemm = (sgemm_t)dlsym(h, "cblas_sgemm");
	*cur = 0;
	for (int64_t i = 0; i < (int64_t)PEAK_N * PEAK_N; i++) { a[i] = 1; b[i] = 0.5f; }
	check[0] = sgemm ? 1 : 0;
}
void gcdbg_gemm(char **bufs, const int64_t *syms, double *ks, volatile int32_t *cur) {
	float *a = (float *)bufs[0], *b = (float *)bufs[1], *c = (float *)bufs[2];
	float *check = (float *)bufs[3];
	*cur = 1;
	if (!sgemm) return;
	double t0 = omp_get_wtime();
	sgemm(101, 111, 111, PEAK_N, PEAK_N, PEAK_N, 1.0f, a, PEAK_N, b, PEAK_N, 0.0f, c, PEAK_N);
	if (ks) ks[1] += omp_get_wtime() - t0;
	check[1] = c[(int64_t)PEAK_N * PEAK_N - 1];
}
`

// SgemmPeak is cblas_sgemm's GFLOP/s (10^9 flop/s, 2·M·N·K per product):
// the best of runs (BestKernelSeconds). Its scratch directory is removed.
func SgemmPeak(runs int) (float64, error) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return 0, fmt.Errorf("sgemm peak: no C compiler (cc) on PATH")
	}
	dir, err := os.MkdirTemp("", "gcdbg-peak-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	src, lib := filepath.Join(dir, "peak.c"), filepath.Join(dir, "peak.so")
	if err := os.WriteFile(src, []byte(peakC), 0o600); err != nil {
		return 0, err
	}
	if out, err := exec.Command(cc, "-O2", "-fopenmp", "-fPIC", "-shared", fmt.Sprintf("-DPEAK_N=%d", peakN), "-o", lib, src, "-ldl").CombinedOutput(); err != nil {
		return 0, fmt.Errorf("sgemm peak: cc: %v: %s", err, strings.TrimSpace(string(out)))
	}
	nn := fmt.Sprint(peakN * peakN)
	flops := int64(2) * peakN * peakN * peakN
	m := &Manifest{Format: "gcdbg.compiled", Version: 1, Graph: "sgemm_peak", Role: "inference", Device: "cpu",
		Buffers: []BufferSpec{
			{Name: "a", Kind: "intermediate", DType: "float32", Sizes: []string{nn}, Arena: -1},
			{Name: "b", Kind: "intermediate", DType: "float32", Sizes: []string{nn}, Arena: -1},
			{Name: "c", Kind: "intermediate", DType: "float32", Sizes: []string{nn}, Arena: -1},
			{Name: "check", Kind: "output", DType: "float32", Sizes: []string{"2"}, Arena: -1},
		},
		Steps: []Step{
			{Kind: "segment", Entry: "gcdbg_init", Kernels: []KernelSpec{{Index: 0, Name: "init", Kind: "pointwise"}}},
			{Kind: "segment", Entry: "gcdbg_gemm", Kernels: []KernelSpec{{Index: 1, Name: "sgemm", Kind: "extern", Flops: flops}}},
		},
		Outputs: []int{3},
	}
	res, err := Exec(lib, m, nil, ExecOptions{Runs: runs})
	if err != nil {
		return 0, err
	}
	if res.Outputs[0].Flat(0) != 1 {
		return 0, fmt.Errorf("sgemm peak: OpenBLAS (libopenblas.so.0) not found")
	}
	if got := res.Outputs[0].Flat(1); got != peakN*0.5 {
		return 0, fmt.Errorf("sgemm peak: c[last] = %v, want %v", got, peakN*0.5)
	}
	secs := res.BestKernelSeconds(1)
	if secs <= 0 {
		return 0, fmt.Errorf("sgemm peak: no time recorded")
	}
	return float64(flops) / secs / 1e9, nil
}
