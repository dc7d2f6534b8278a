package compiler_test

import (
	"fmt"
	"strings"
	"testing"

	"gcdbg/compiler"
)

// The skinny-M GEMM candidate's loops (render/gemm_skinny.go: NT, the 5x5
// tile's 25 simd reduction accumulators, the single rows' 1x5 tile and the
// last columns' dot products; NN, the 5 x 32 register tile and the single
// rows of any width), in the program of runner/testdata/skinny_linear.json
// (Linear layers of 12 and 2 rows, x @ u), are
// reported vectorized by gcc under the build's flags (no -ffast-math: the
// omp simd reduction clause allows the lanes' partial sums). The generic
// check (checkSimdLoopsVectorized) skips the function: the kernels name it
// in a choice expression, not in a call. Its values are checked against
// PyTorch by the runner's TestSkinnyGEMMMatchesPyTorch. The build (-Wall)
// warns about nothing.
func TestSkinnyGEMMVectorizes(t *testing.T) {
	u := loadUnits(t, "../runner/testdata/skinny_linear.json")[0]
	src := renderLP(t, u, u.Programs[0])
	if !strings.Contains(src.Code, "gcdbg_c & 128 ? gcdbg_gemm_skinny_float : ") {
		t.Fatal("no kernel offers the skinny-M GEMM")
	}
	art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range strings.Split(art.VecReport, "\n") {
		if strings.Contains(r, "warning:") {
			t.Errorf("gcc warns: %s", r)
		}
	}
	lines := strings.Split(src.Code, "\n")
	in, loops := false, 0
	for i, l := range lines {
		if strings.HasPrefix(l, "static ") && strings.Contains(l, " gcdbg_gemm_skinny_float(") {
			in = true
		}
		if !in {
			continue
		}
		if l == "}" {
			break
		}
		if !strings.HasPrefix(strings.TrimSpace(l), "#pragma omp simd") {
			continue
		}
		loops++
		loop, ok := i+2, false // 1-based line of the for statement after the pragma
		for _, r := range strings.Split(art.VecReport, "\n") {
			for ln := loop; ln <= loop+8; ln++ {
				if strings.HasPrefix(r, fmt.Sprintf("kernel.c:%d:", ln)) && strings.Contains(r, "loop vectorized") {
					ok = true
				}
			}
		}
		if !ok {
			t.Errorf("the skinny-M GEMM's simd loop at line %d is not reported vectorized:\n%s\n--- report:\n%s",
				loop, strings.Join(lines[i:min(i+8, len(lines))], "\n"), art.VecReport)
		}
	}
	if loops != 5 {
		t.Errorf("%d simd loops in gcdbg_gemm_skinny_float, want 5 (NT: the 5x5 tile, the single rows, the last columns; NN: the 5-row tile, the single rows)", loops)
	}
}
