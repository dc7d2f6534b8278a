package compiler

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// The OpenMP environment of timed code: the worker that runs every
// compiled program, and the PyTorch eager timing server of `gcdbg bench`
// (exporter/bench_eager.py, whose ATen kernels use OpenMP too), so that a
// speedup compares the code and not the thread settings. Measured on a
// loaded 2-core machine (examples/unseen/README.md), PyTorch under
// libgomp's default policy beside a passive worker made bench's speedups
// 7-25x too high: its spinning threads slowed PyTorch, not the worker.

// OpenMPVars are the variables OpenMPEnv decides, in its order.
var OpenMPVars = []string{"OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT"}

// OpenMPEnv is "NAME=value" for each of OpenMPVars that timed code runs
// with; a user's setting of either wins.
//   - OMP_NUM_THREADS: runtime.NumCPU() (the CPUs this process may run on,
//     libgomp's own default), written out because PyTorch's default counts
//     every CPU of the machine, whatever the affinity mask.
//   - OMP_WAIT_POLICY: passive on 4 CPUs or fewer: with few cores, OpenMP
//     threads spinning after each parallel region starve the parent and
//     the next kernel (on a shared 2-core machine the MLP's kernels ran 5x
//     slower with libgomp's default, active, policy). With more CPUs it is
//     left unset: libgomp's default (spin a while, then sleep).
//   - OPENBLAS_THREAD_TIMEOUT: 4 (OpenBLAS's least: its idle threads sleep
//     after 2^4 cycles) on 4 CPUs or fewer, else unset. OpenBLAS's pthread
//     build (Debian's, which PyTorch 1.13 links too) keeps its threads
//     spinning 2^28 cycles (~80 ms) after each threaded GEMM; on two cores
//     that spinner halved the OpenMP kernels that followed: a 48 MB triad
//     ran 2.0-2.2 ms after a 2-thread sgemm and 0.80-0.82 ms with the
//     timeout at 4 (2026-11-26, quiet machine, tools in docs/performance.md).
func OpenMPEnv() []string {
	var env []string
	if v := os.Getenv("OMP_NUM_THREADS"); v != "" {
		env = append(env, "OMP_NUM_THREADS="+v)
	} else {
		env = append(env, fmt.Sprintf("OMP_NUM_THREADS=%d", runtime.NumCPU()))
	}
	if v := os.Getenv("OMP_WAIT_POLICY"); v != "" {
		env = append(env, "OMP_WAIT_POLICY="+v)
	} else if runtime.NumCPU() <= 4 {
		env = append(env, "OMP_WAIT_POLICY=passive")
	}
	if v := os.Getenv("OPENBLAS_THREAD_TIMEOUT"); v != "" {
		env = append(env, "OPENBLAS_THREAD_TIMEOUT="+v)
	} else if runtime.NumCPU() <= 4 {
		env = append(env, "OPENBLAS_THREAD_TIMEOUT=4")
	}
	return env
}

// OpenMPSummary is OpenMPEnv in words, for a header: every variable of
// OpenMPVars, "unset" where OpenMPEnv leaves it to libgomp or OpenBLAS.
func OpenMPSummary() string {
	return DescribeOpenMP(OpenMPEnv())
}

// DescribeOpenMP says what env (NAME=value entries, later ones winning,
// as exec.Cmd reads them) sets each of OpenMPVars to.
func DescribeOpenMP(env []string) string {
	var parts []string
	for _, k := range OpenMPVars {
		v, ok := LookupEnv(env, k)
		if !ok {
			v = "unset (the library's default)"
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// LookupEnv is name's value in env, the last entry winning (exec.Cmd's rule
// for duplicates).
func LookupEnv(env []string, name string) (string, bool) {
	v, found := "", false
	for _, e := range env {
		if k, val, ok := strings.Cut(e, "="); ok && k == name {
			v, found = val, true
		}
	}
	return v, found
}
