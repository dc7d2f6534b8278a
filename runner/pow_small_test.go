package runner

import (
	"strings"
	"testing"
)

// pow by 2, 3, -1 and -2 compiles to multiplications as PyTorch's CPU
// kernel computes it (render/pow_small.go), not a powf call per element;
// 0.5 and -0.5 are sqrt and 1 / sqrt. On -0, +-inf, NaN, subnormal and overflowing values
// (testdata/models/pow_small.py) the compiled outputs match PyTorch's and
// the eager interpreter's.
func TestSmallPowMultiplies(t *testing.T) {
	tr, units, src := renderFirstProgram(t, "testdata/pow_small.json")
	if n := strings.Count(src.Code, "powf(t"); n != 0 {
		t.Errorf("%d powf calls, want none:\n%s", n, src.Code)
	}
	for _, want := range []string{" * t", "1 / "} {
		if !strings.Contains(src.Code, want) {
			t.Errorf("no %q in the kernels:\n%s", want, src.Code)
		}
	}
	matchEachChoice(t, tr, units, 7, "0")
}
