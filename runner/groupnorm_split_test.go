package runner

import (
	"regexp"
	"strings"
	"testing"
)

// GroupNorm(4, 16) + SiLU in training (testdata/models/groupnorm_silu_train.py):
// its kernels reduce over a group's 4 x 256 points and read the per-channel
// weight and bias at point // 256, a gather per vector inside the SIMD loop
// (unet_gn's GroupNorm kernels at 5 GB/s). render/reduce_split.go runs such a
// reduce loop as [4, 256], so no kernel of the forward or backward program
// divides its SIMD reduce variable, and the compiled program (every choice the
// kernels default to) matches PyTorch and the eager interpreter.
func TestGroupNormReduceLoopSplitByChannel(t *testing.T) {
	tr, units, fwd := renderFirstProgram(t, "testdata/groupnorm_silu_train.json")
	bwd := renderBackwardProgram(t, units, "groupnorm_silu_train.json")
	// a division or modulo of a SIMD reduce loop's variable in its kernel
	simdVar := regexp.MustCompile(`#pragma omp simd[^\n]*\n\s*for \(int64_t (r[0-9]+) `)
	split := regexp.MustCompile(`for \(int64_t r1 = 0; r1 < 256; r1\+\+\)`)
	for role, code := range map[string]string{"forward": fwd.Code, "backward": bwd.Code} {
		for _, k := range strings.Split(code, "// kernel ")[1:] {
			for _, m := range simdVar.FindAllStringSubmatch(k, -1) {
				if div := regexp.MustCompile(`\(` + m[1] + ` [/%] [0-9]+\)`).FindString(k); div != "" {
					t.Errorf("%s kernel divides its SIMD reduce variable (%s):\n%s", role, div, k)
				}
			}
		}
		if !split.MatchString(code) {
			t.Errorf("%s program has no reduce loop split into runs of 256 points", role)
		}
		if !strings.Contains(code, "layer_norm") {
			t.Errorf("%s program: no GroupNorm kernel found", role)
		}
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graphs[0]
	if !res.OK || len(g.Outputs) != 2 || len(g.Grads) != 6 {
		t.Errorf("compiled GroupNorm does not match PyTorch (%d outputs, %d grads):\n%s", len(g.Outputs), len(g.Grads), res.Summary())
	}
	checkAllMatch(t, g, "")
}
