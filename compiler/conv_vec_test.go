package compiler_test

import (
	"fmt"
	"strings"
	"testing"

	"gcdbg/compiler"
)

// im2col's row copy and col2im's row add are vector loops (render/conv.go):
// the output columns whose input column lies in the image are computed once
// per kernel column, and the stride-1 copy and add are masked by that span
// (AVX-512 masked loads and stores). With the bound check of the input
// column in the loop, im2col was not vectorized (convnet_train's conv2
// im2col x16: 0.71 -> 0.34 ms on one thread). The adaptive average pool's
// sum over a cell of whole rows (a global average pool) is a vector loop too, and so is max_pool2d's
// window search over an output row, forward and backward (render/maxpool2d.go). The values are checked by
// TestConvPoolCompiledNoFallback (strides, padding, dilation, groups).
func TestConvHelpersVectorize(t *testing.T) {
	u := loadUnits(t, "../fixtures/conv_pool_train.json")[0]
	seen := map[string]bool{}
	for _, lp := range u.Programs {
		src := renderLP(t, u, lp)
		art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(src.Code, "\n") {
			for _, want := range []string{"? x[ow + off] : 0;", "x[ow + off] += sr[ow];", "s += px[i];"} {
				if !strings.Contains(l, want) {
					continue
				}
				// a helper the program does not call is not compiled
				if h := map[string]string{"? x[ow + off] : 0;": "gcdbg_im2col_float(", "x[ow + off] += sr[ow];": "gcdbg_col2im_float("}[want]; strings.Count(src.Code, h) < 2 {
					continue
				}
				seen[want] = true
				if !strings.Contains(art.VecReport, fmt.Sprintf("kernel.c:%d:", i+1)) ||
					!strings.Contains(reportLines(art.VecReport, i+1), "loop vectorized") {
					t.Errorf("%s: line %d (%s) is not reported vectorized:\n%s", lp.Role, i+1, strings.TrimSpace(l), art.VecReport)
				}
			}
			// max_pool2d's search: gcc reports the loop at a line of its body
			if strings.Contains(l, "for (int64_t ow = 0; ow < OWR; ow++) {") {
				seen[lp.Role+" max_pool2d"] = true
				var body strings.Builder
				for j := i + 1; j <= i+10; j++ {
					body.WriteString(reportLines(art.VecReport, j))
				}
				if !strings.Contains(body.String(), "loop vectorized") {
					t.Errorf("%s: the max_pool2d window search at line %d is not reported vectorized:\n%s", lp.Role, i+1, art.VecReport)
				}
			}
		}
	}
	for _, want := range []string{"? x[ow + off] : 0;", "x[ow + off] += sr[ow];", "s += px[i];", "forward max_pool2d", "backward max_pool2d"} {
		if !seen[want] {
			t.Errorf("the generated C has no %q", want)
		}
	}
}

// reportLines is the part of a -fopt-info-vec report about one line of kernel.c.
func reportLines(report string, line int) string {
	var b strings.Builder
	for _, r := range strings.Split(report, "\n") {
		if strings.HasPrefix(r, fmt.Sprintf("kernel.c:%d:", line)) {
			b.WriteString(r + "\n")
		}
	}
	return b.String()
}
