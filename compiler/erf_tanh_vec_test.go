package compiler_test

import (
	"regexp"
	"strings"
	"testing"

	"gcdbg/compiler"
)

// The GELUs of a feed-forward layer in training (both forms, forward and
// backward: runner/testdata/gelu_ffn_train.json) call the prelude's inline
// functions, never libm's erff or tanhf: the forward's GELUs
// gcdbg_gelu_erff and gcdbg_gelu_tanhf (render/gelu.go), the backward's
// erf and tanh gcdbg_erff and gcdbg_tanhf (render/erf_tanh.go); and gcc
// vectorizes every simd loop of the programs: the loops that call them
// included.
func TestErfTanhInlineVectorized(t *testing.T) {
	u := loadUnits(t, "../runner/testdata/gelu_ffn_train.json")[0]
	calls := map[string]int{}
	libm := regexp.MustCompile(`[^_\w](erff|tanhf)\(`)
	for _, lp := range u.Programs {
		src := renderLP(t, u, lp)
		kernels := src.Code[strings.Index(src.Code, "gcdbg_gelu_tanhf(float x)"):] // after the prelude's definitions
		for _, fn := range []string{"gcdbg_erff", "gcdbg_tanhf", "gcdbg_gelu_erff", "gcdbg_gelu_tanhf"} {
			calls[fn] += strings.Count(kernels, "= "+fn+"(")
		}
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
	for fn, n := range calls {
		if n == 0 {
			t.Errorf("no call of %s in the kernels (%v): the forward's GELUs call gcdbg_gelu_*, the backward's erf and tanh gcdbg_erff/gcdbg_tanhf", fn, calls)
		}
	}
}
