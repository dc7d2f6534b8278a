package compiler_test

import (
	"regexp"
	"strings"
	"testing"

	"gcdbg/compiler"
)

// The GELUs of a feed-forward layer in training (both forms, forward and
// backward: runner/testdata/gelu_ffn_train.json) call the prelude's inline
// gcdbg_erff and gcdbg_tanhf (render/erf_tanh.go), never libm's erff or
// tanhf, and gcc vectorizes every simd loop of the programs: the loops
// that call them included.
func TestErfTanhInlineVectorized(t *testing.T) {
	u := loadUnits(t, "../runner/testdata/gelu_ffn_train.json")[0]
	calls := map[string]int{}
	libm := regexp.MustCompile(`[^_\w](erff|tanhf)\(`)
	for _, lp := range u.Programs {
		src := renderLP(t, u, lp)
		kernels := src.Code[strings.Index(src.Code, "gcdbg_tanhf(float x)"):] // after the prelude's definitions
		calls["gcdbg_erff"] += strings.Count(kernels, "= gcdbg_erff(")
		calls["gcdbg_tanhf"] += strings.Count(kernels, "= gcdbg_tanhf(")
		if m := libm.FindString(kernels); m != "" {
			t.Errorf("%s program calls libm's %s", lp.Role, m)
		}
		art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
		if err != nil {
			t.Fatal(err)
		}
		if n := checkSimdLoopsVectorized(t, src.Code, art.VecReport); n == 0 {
			t.Errorf("%s program: no simd loop", lp.Role)
		}
	}
	if calls["gcdbg_erff"] == 0 || calls["gcdbg_tanhf"] == 0 {
		t.Errorf("calls of the inline erf/tanh in the kernels: %v, want both", calls)
	}
}
