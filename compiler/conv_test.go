package compiler_test

import (
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/interp"
)

// conv_pool_train (fixtures/models/conv_pool_train.py: strided, padded,
// dilated, grouped and depthwise convolutions, max/avg/adaptive pools, in
// training) compiles with no eager fallback: convolutions forward and
// backward are im2col/col2im around the GEMM, pools direct loops; forward
// and backward programs compute what the eager interpreter computes (the
// runner's fixture test compares them with PyTorch's outputs and grads).
func TestConvPoolCompiledNoFallback(t *testing.T) {
	u := loadUnits(t, "../fixtures/conv_pool_train.json")[0]
	saved := interp.Inputs{}
	var code strings.Builder
	for _, lp := range u.Programs {
		src := renderLP(t, u, lp)
		code.WriteString(src.Code)
		for _, st := range src.Manifest.Steps {
			if st.Kind == "fallback" {
				t.Errorf("%s: %s (%s) runs in the eager fallback", lp.Role, st.IRNode, st.Op)
			}
		}
		art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := checkNumbers(t, art, u, lp, saved); err != nil || !ok {
			t.Errorf("%s: compiled values differ from the eager interpreter: %v", lp.Role, err)
		}
	}
	for _, want := range []string{"gcdbg_im2col_float(", "gcdbg_col2im_float(", "conv2d_backward_weight: dW_g",
		"max_pool2d_backward", "avg_pool2d_backward", "adaptive_avg_pool2d_backward"} {
		if !strings.Contains(code.String(), want) {
			t.Errorf("the generated C has no %q", want)
		}
	}
}
