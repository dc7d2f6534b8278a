package compiler_test

import (
	"math"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/loopir"
)

// ../runner/testdata/row_recip (an inference graph: softmax over rows of
// 1000 and over the columns of a 6x200 tensor, SiLU; rows with NaN, ±Inf,
// all -Inf, masked, underflowing, -0 and a large offset; SiLU on NaN, ±Inf,
// ±0, denormals and the exp overflow/underflow range): softmax over the
// last dim multiplies by one reciprocal of each row's sum, over dim 0 it
// divides, and SiLU is one division x / (1 + exp(-x)), as PyTorch's CPU
// kernels compute them (stages/decompositions.go), and the compiled values
// are PyTorch's: NaN, ±Inf and the sign of every zero exactly, finite
// values within 5 ulps (libmvec's expf, up to 2.48 ulps, against PyTorch's
// Sleef expf, 1 ulp, plus the roundings of the sums, the reciprocal and
// the multiply or the division; measured: 4 over the last dim, 2 for SiLU,
// 5 over dim 0).
func TestRowReciprocalMatchesPyTorch(t *testing.T) {
	u := loadUnits(t, "../runner/testdata/row_recip.json")[0]
	lp := u.Programs[0]
	src := renderLP(t, u, lp)
	if n := strings.Count(src.Code, "// softmax_reciprocal"); n != 1 {
		t.Errorf("%d softmax reciprocals, want 1 (the last dim's; over dim 0 PyTorch divides):\n%s", n, src.Code)
	}
	if strings.Contains(src.Code, "sigmoid") || !strings.Contains(src.Code, "// silu_exp") {
		t.Errorf("SiLU is not x / (1 + exp(-x)):\n%s", src.Code)
	}
	art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := runLib(art, loopir.InputsFromGraph(lp.Loops))
	if err != nil {
		t.Fatal(err)
	}
	want := u.Captured.Expected.Outputs
	if len(got) != 3 || len(want) != 3 {
		t.Fatalf("%d outputs, PyTorch %d: want 3", len(got), len(want))
	}
	for o, name := range []string{"softmax", "silu", "softmax over dim 0"} {
		w, g := want[o].Contiguous(), got[o]
		if w.Numel() != g.Numel() {
			t.Fatalf("%s: %d elements, PyTorch has %d", name, g.Numel(), w.Numel())
		}
		worst, at := 0.0, 0
		for i := 0; i < w.Numel(); i++ {
			a, b := float32(g.Flat(i)), float32(w.Flat(i))
			switch {
			case a != a || b != b:
				if a == a || b == b {
					t.Errorf("%s[%d] = %v, PyTorch %v", name, i, a, b)
				}
			case math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) || a == 0 || b == 0:
				if math.Float32bits(a) != math.Float32bits(b) { // the sign of a zero too
					t.Errorf("%s[%d] = %v, PyTorch %v", name, i, a, b)
				}
			default:
				if d := ulps(a, b); d > worst {
					worst, at = d, i
				}
			}
		}
		if worst > 5 {
			t.Errorf("%s: %v ulps from PyTorch, want at most 5", name, worst)
		}
		t.Logf("%s: at most %v ulps from PyTorch (element %d: %v, PyTorch %v)", name, worst, at, g.Flat(at), w.Flat(at))
	}
}

// ulps is |a - b| in units of the last place of b (ulp32, mathulp_test.go).
func ulps(a, b float32) float64 {
	return math.Abs(float64(a)-float64(b)) / ulp32(float64(b))
}
