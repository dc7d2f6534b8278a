package compiler_test

import (
	"regexp"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/interp"
)

// Per-channel sums over (N, H, W) of an NCHW tensor (relu_mask_train's
// scale/shift gradients: BatchNorm's and a conv bias's in small) run H·W as
// one vector loop (render/reduce_merge.go) instead of a loop per dimension
// with a simd loop of W elements: gcc reports the merged loop vectorized and
// the values are the eager interpreter's, the NaN, ±Inf and -0 of the input
// included.
func TestReduceMergeChannelSums(t *testing.T) {
	u := loadUnits(t, "testdata/relu_mask_train.json")[0]
	saved := interp.Inputs{}
	merged := 0
	for _, lp := range u.Programs {
		src := renderLP(t, u, lp)
		// the sums that merged H·W loops accumulate (both gradient sums may
		// share one loop since the backward's sums are fused: simplify_bwd.go)
		for _, m := range mergedSums.FindAllStringSubmatch(src.Code, -1) {
			merged += strings.Count(m[1], "reduction(+:")
		}
		if strings.Contains(src.Code, "r2 < 16; r2++)") {
			t.Errorf("%s: a reduce loop over W alone is left:\n%s", lp.Role, src.Code)
		}
		art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
		if err != nil {
			t.Fatal(err)
		}
		checkSimdLoopsVectorized(t, src.Code, art.VecReport)
		if ok, err := checkNumbers(t, art, u, lp, saved); err != nil || !ok {
			t.Errorf("%s: compiled values differ from the eager interpreter: %v", lp.Role, err)
		}
	}
	if merged < 2 {
		t.Errorf("%d sums in merged reduce loops over H·W = 256, want the scale's and the shift's gradient sums", merged)
	}
}

var mergedSums = regexp.MustCompile(`#pragma omp simd((?: reduction\(\+:\w+\))+)\n\s*for \(int64_t r1 = 0; r1 < 256; r1\+\+\)`)
