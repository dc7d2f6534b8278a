package render_test

import (
	"strings"
	"testing"

	"gcdbg/render"
)

// cumsum renders as one linear scan per row in every dialect (C with a
// double running sum; CUDA and OpenCL one thread per row), never as a
// masked [n, n] reduction. The C code is built, run and compared with
// PyTorch by runner's TestCumsumCompilesAsLinearScan.
func TestCumsumRendersAsScan(t *testing.T) {
	units := loadUnits(t, "../runner/testdata/cumsum_scan.json")
	scans := 0
	for _, u := range units {
		for _, lp := range u.Programs {
			for _, d := range []render.Dialect{render.C, render.CUDA, render.OpenCL} {
				src := renderLP(t, u, lp, d, render.Options{})
				n := strings.Count(src.Code, "one linear scan per row") + strings.Count(src.Code, "one thread scans each row")
				if d.Name == "c" {
					scans += n
					if n > 0 && !strings.Contains(src.Code, "double acc = 0;") {
						t.Errorf("%s: the C scan does not keep its running sum in double", lp.Role)
					}
				}
				if n == 0 {
					t.Errorf("%s %s: no cumsum scan in the generated code", d.Name, lp.Role)
				}
			}
		}
	}
	if scans < 5 {
		t.Errorf("%d cumsum scans in the C code, want at least 5", scans)
	}
}
