package compiler_test

import (
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/interp"
)

// The backward of an LSTM language model over 32 tokens
// (runner/testdata/lstm_recompute_train.json, exported from PyTorch in
// training) recomputes every step's gates from the saved pre-activations.
// Fused whole, that was one kernel of ~250 buffers whose loop called the
// prelude's gcdbg_tanhf 64 times; gcc's inliner left 21 of the calls (the
// function too long), and the loop was not vectorized: the 668-line
// kernel of examples/review5/lstm_lm.py ran on scalars at 0.77 GB/s. Now
// the helpers are always_inline (render/erf_tanh.go) and the scheduler
// caps a kernel's streams (sched/stream_cap.go): the recomputation is
// several kernels, the loop of every kernel that calls gcdbg_tanhf is
// reported vectorized, and the values are the eager interpreter's (the
// runner's TestLSTMRecomputeMatchesPyTorch compares them with PyTorch's).
func TestLSTMRecomputeVectorized(t *testing.T) {
	u := loadUnits(t, "../runner/testdata/lstm_recompute_train.json")[0]
	saved := interp.Inputs{}
	tanh, kernels := 0, 0 // the backward's tanh calls, and its kernels that make them
	for _, lp := range u.Programs {
		src := renderLP(t, u, lp)
		if lp.Role == "backward" {
			for _, k := range strings.Split(src.Code, "\n}\n") {
				if c := strings.Count(k, "= gcdbg_tanhf("); c > 0 && strings.Contains(k, "\nstatic void k") {
					tanh, kernels = tanh+c, kernels+1
				}
			}
		}
		art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
		if err != nil {
			t.Fatal(err)
		}
		if n := checkSimdLoopsVectorized(t, tanhKernelsOnly(src.Code), art.VecReport); n == 0 {
			t.Errorf("%s program: no simd loop calls gcdbg_tanhf", lp.Role)
		}
		if ok, err := checkNumbers(t, art, u, lp, saved); err != nil || !ok {
			t.Fatalf("%s: compiled values differ from the eager interpreter: %v", lp.Role, err)
		}
	}
	// the pattern this guards: the 32 steps' recomputation (2 tanh a step)
	// in the backward, more than one step to a kernel
	if tanh < 64 || kernels < 2 || tanh < 4*kernels {
		t.Errorf("the backward calls gcdbg_tanhf %d times in %d kernels, want the 32 steps' recomputation (>= 64) in fused kernels", tanh, kernels)
	}
}

// tanhKernelsOnly is code with the "#pragma omp simd" lines of kernels that
// call no gcdbg_tanhf renamed (same lines, so gcc's report still lines up):
// checkSimdLoopsVectorized then checks only the kernels that call it.
func tanhKernelsOnly(code string) string {
	parts := strings.Split(code, "\n}\n")
	for i, k := range parts {
		if !strings.Contains(k, "= gcdbg_tanhf(") {
			parts[i] = strings.ReplaceAll(k, "#pragma omp simd", "#pragma gcdbg_unchecked simd")
		}
	}
	return strings.Join(parts, "\n}\n")
}
