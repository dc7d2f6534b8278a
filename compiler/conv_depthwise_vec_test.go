package compiler_test

import (
	"strings"
	"testing"

	"gcdbg/compiler"
)

// The depthwise kernels' inner loops (render/conv_depthwise.go) are vector
// loops: the forward's pass per tap over a block of the flattened output
// grid, the backward input's flat pass per tap and its stride-2 write of
// dX (two phase rows interleaved), and the backward weight's
// dot product per tap (8 double lanes: gcc unrolls them and vectorizes the
// loop over the plane; an omp simd reduction there ran gcc's scalar copy).
// Their values against PyTorch: runner's TestConvDepthwiseMatchesPyTorch.
func TestConvDepthwiseVectorize(t *testing.T) {
	u := loadUnits(t, "../runner/testdata/conv_depthwise_train.json")[0]
	// each mark and the kernel that holds it (a helper the program does not call is not compiled)
	marks := map[string]string{"/* dw forward taps": "gcdbg_dw_forward_float(", "/* dw backward input taps */": "gcdbg_dw_backward_input_float(",
		"/* dw backward weight dot": "gcdbg_dw_backward_weight_float(", "/* dw backward input interleave */": "gcdbg_dw_backward_input_float("}
	seen := map[string]bool{}
	for _, lp := range u.Programs {
		src := renderLP(t, u, lp)
		art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(src.Code, "\n") {
			for want, fn := range marks {
				if !strings.Contains(l, want) || strings.Count(src.Code, fn) < 2 {
					continue
				}
				seen[want] = true
				if r := reportLines(art.VecReport, i+1); !strings.Contains(r, "loop vectorized") {
					t.Errorf("%s: line %d (%s) is not reported vectorized:\n%s", lp.Role, i+1, strings.TrimSpace(l), art.VecReport)
				} else {
					t.Logf("%s: %s: %s", lp.Role, want, strings.TrimSpace(r))
				}
			}
		}
	}
	for want := range marks {
		if !seen[want] {
			t.Errorf("the generated C has no %q", want)
		}
	}
}
