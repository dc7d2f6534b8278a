package runner

import (
	"path/filepath"
	"strings"
	"testing"
)

// The skinny-M GEMM candidate (render/gemm_skinny.go) on
// testdata/models/skinny_linear.py (exported from PyTorch 1.13): Linear
// layers of 12 and 2 rows, K = 67 and 163, N = 163 and 40 (NT: partial
// tiles in rows, columns and the simd lanes), one product's epilogue
// adding the other's, and an NN product x @ u of 12 x 70 (a partial block
// of columns), rows of NaN and +-Inf from a NaN and two infinite inputs. Forced
// on the team (choice 128) and on one thread (129), every mm kernel runs
// it and every output matches PyTorch and the eager interpreter, NaN and
// Inf at PyTorch's positions.
func TestSkinnyGEMMMatchesPyTorch(t *testing.T) {
	tr, units := loadCompiledUnits(t, filepath.Join("testdata", "skinny_linear.json"))
	for _, c := range []struct{ choice, label string }{{"128", "skinny-M GEMM, all threads"}, {"129", "skinny-M GEMM, one thread"}} {
		t.Run(c.choice, func(t *testing.T) {
			t.Setenv("GCDBG_AUTOTUNE", "0")
			t.Setenv("GCDBG_CHOICE", c.choice)
			res := runCompiledMatches(t, tr, units)
			ran := 0
			for _, g := range res.Graphs {
				for _, k := range g.Kernels {
					if kr, ok := k.(KernelResult); ok && kr.Choice != nil && strings.HasPrefix(kr.Choice.Label, c.label) {
						ran++
					}
				}
				if len(g.Outputs) != 3 {
					t.Fatalf("%d outputs, want 3", len(g.Outputs))
				}
				if o := g.Outputs[0].VsExpected; o == nil || o.NonFinite != 3*163 {
					t.Errorf("output 0 vs PyTorch: %+v, want the NaN and +-Inf rows 3, 7 and 9 compared", o)
				}
				if o := g.Outputs[2].VsExpected; o == nil || o.NonFinite != 70 {
					t.Errorf("output 2 vs PyTorch: %+v, want the NaN row 3 compared", o)
				}
			}
			if ran != 4 {
				t.Errorf("%d kernels ran the %s, want the 3 Linear layers' and x @ u", ran, c.label)
			}
		})
	}
	src := units[0].Programs[0].Source
	if src == nil || !strings.Contains(src.Code, "gcdbg_c & 128 ? gcdbg_gemm_skinny_float : ") {
		t.Fatal("the mm kernels do not offer the skinny-M GEMM")
	}
}
