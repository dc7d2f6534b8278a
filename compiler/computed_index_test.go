package compiler_test

import (
	"strings"
	"testing"
)

// strided_slice_train (runner/testdata/models/strided_slice_train.py):
// the backward of h[..., ::2], h[..., 1::2] and AvgPool1d(4, 2) sums
// strided slice_scatters, each loading the gradient at clamp(floordiv(x -
// start, step), 0, n - 1) of the loop variable. That index is computed
// from the loop alone and proven inside the buffer, so the load is plain
// (no gcdbg_oob check per element) and the loop carries omp simd
// (render/computed_index.go); runner TestStridedSliceBackwardMatches checks
// the values.
func TestComputedSliceScatterIndexIsUnchecked(t *testing.T) {
	u := loadUnits(t, "../runner/testdata/strided_slice_train.json")[0]
	var bwd string
	for _, lp := range u.Programs {
		if lp.Role == "backward" {
			bwd = renderLP(t, u, lp).Code
		}
	}
	if bwd == "" {
		t.Fatal("test premise: a backward program")
	}
	kernels := 0
	for _, k := range strings.Split(bwd, "\nstatic void ")[1:] {
		name, _, _ := strings.Cut(k, "(")
		body, _, _ := strings.Cut(k, "\n}\n")
		if !strings.Contains(body, "gcdbg_floordiv_i64") || !strings.Contains(body, "slice_scatter") {
			continue
		}
		kernels++
		if strings.Contains(body, "gcdbg_oob(") {
			t.Errorf("%s: a computed index in bounds is still checked", name)
		}
		if !strings.Contains(body, "#pragma omp simd") {
			t.Errorf("%s: no omp simd", name)
		}
	}
	if kernels == 0 {
		t.Fatal("test premise: a kernel loads through a strided slice_scatter's computed index")
	}
}
