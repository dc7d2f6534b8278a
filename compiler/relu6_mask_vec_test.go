package compiler_test

import (
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/interp"
)

// A ReLU6 (hardtanh to [0, 6]: two selects) whose backward recompute stores
// both bool masks, `le` of the input and `ge` of the first select's result
// (testdata/relu6_mask_train.json: MobileNetV2's BatchNorm + ReLU6 + 1x1 conv
// in small), is a vector loop: gcc's jump threading knew the second compare
// false on the path where the first select took 0, split the loop into
// branches and if-conversion gave up ("control flow in loop"), until builds
// passed -fno-thread-jumps (compiler/build.go). MobileNetV2's backward spent
// 195 of 462 ms of kernel time in these loops (two mispredicted branches per
// element on random signs). The values are still the eager interpreter's,
// NaN, ±Inf, -0, 0, a denormal and values at the clamp's edges included.
func TestReLU6MasksVectorize(t *testing.T) {
	src, loops := buildMaskedUnit(t, "testdata/relu6_mask_train.json")
	if loops < 3 {
		t.Errorf("%d simd loops, want the forward's, the mask recompute's and the masked selects'", loops)
	}
	// the premise: the recompute stores both masks and the clamped value
	for _, want := range []string{"bool *b_buf2, bool *b_buf4, float *b_buf5)", "const bool t5 = (t4 <= 0.0f);  // hardtanh_le", "const bool t7 = (t6 >= 6.0f);  // hardtanh_ge"} {
		if !strings.Contains(src, want) {
			t.Errorf("the generated C has no %q:\n%s", want, src)
		}
	}
}

// buildMaskedUnit builds every loop program of the trace's first unit,
// checks that each of its simd loops is reported vectorized and that its
// values are the eager interpreter's, and returns the C of all programs and
// how many simd loops they have.
func buildMaskedUnit(t *testing.T, path string) (string, int) {
	t.Helper()
	u := loadUnits(t, path)[0]
	saved := interp.Inputs{}
	var code strings.Builder
	loops := 0
	for _, lp := range u.Programs {
		src := renderLP(t, u, lp)
		code.WriteString(src.Code)
		art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
		if err != nil {
			t.Fatal(err)
		}
		loops += checkSimdLoopsVectorized(t, src.Code, art.VecReport)
		if ok, err := checkNumbers(t, art, u, lp, saved); err != nil || !ok {
			t.Errorf("%s: compiled values differ from the eager interpreter: %v", lp.Role, err)
		}
	}
	return code.String(), loops
}
