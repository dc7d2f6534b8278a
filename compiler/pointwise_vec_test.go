package compiler_test

import (
	"strings"
	"testing"
)

// A ReLU whose `gt` mask is stored for the backward, and the backward's
// select of the gradient by that bool mask (testdata/relu_mask_train.json:
// convnet_train's BatchNorm + ReLU + max-pool in small) are vector loops:
// gcc left both scalar, with a data-dependent branch per element (3.4 ms
// instead of ~0.2 for convnet_train's recompute kernel), until bool loads
// read uint8_t (render/cstyle.go) and -fno-tree-pre kept the selects
// branch-free (compiler/build.go). The values are still the eager
// interpreter's, NaN, ±Inf and -0 in the input included. The max-pool
// backward's window search is a vector loop over output columns too
// (render/maxpool2d.go; the scalar search took 1.1 ms of one core against 0.27).
func TestMaskedPointwiseVectorize(t *testing.T) {
	src, loops := buildMaskedUnit(t, "testdata/relu_mask_train.json")
	if loops < 3 {
		t.Errorf("%d simd loops, want the forward's, the mask recompute's and the masked select's", loops)
	}
	// the premise: a bool mask stored from a ReLU's result and read back
	for _, want := range []string{"const bool t6 = (t5 > 0.0f);  // gt", "const bool t0 = ((const uint8_t *)", "? t1 : 0.0f);  // where", "where[ow] = best;"} {
		if !strings.Contains(src, want) {
			t.Errorf("the generated C has no %q:\n%s", want, src)
		}
	}
}
