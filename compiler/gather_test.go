package compiler_test

import (
	"fmt"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/interp"
	"gcdbg/render"
	"gcdbg/stages"
)

// An embedding in training (testdata/gather_rows.json: a 1000 x 64 table,
// 128 ids with repeats) compiles without an eager fallback: the lookup is
// a gather whose row loop stays out of the parallel collapse and is
// vectorized by gcc (render/gather.go), and the table's gradient, a
// scatter_add with a 128-long index, is generated C (render/scatter_extern.go)
// that adds repeated rows up; both equal the eager interpreter's values
// (the runner compares them with PyTorch's through `gcdbg run`).
func TestGatherRowsCompiled(t *testing.T) {
	u := loadUnits(t, "testdata/gather_rows.json")[0]
	saved := interp.Inputs{}
	var code strings.Builder
	gathered := false
	for _, lp := range u.Programs {
		src, art := compiledMatch(t, u, lp, saved, true)
		code.WriteString(src.Code)
		// The gather's row loop: the loop after "parallel for" (no collapse)
		// in the index_select kernel, reported vectorized by gcc.
		lines := strings.Split(src.Code, "\n")
		for i, l := range lines {
			if !strings.Contains(l, "index_select") || !strings.HasPrefix(l, "static void") {
				continue
			}
			gathered = true
			if !strings.Contains(lines[i+1], "#pragma omp parallel for if(") {
				t.Errorf("the gather's loops are collapsed or not parallel:\n%s", strings.Join(lines[i:i+4], "\n"))
			}
			// The rows ahead are prefetched before the row loop
			// (render/gather_prefetch.go).
			if !strings.Contains(lines[i+3], "prefetch row x0+4") || !strings.Contains(strings.Join(lines[i+3:i+12], "\n"), "__builtin_prefetch(") {
				t.Errorf("no prefetch of the rows ahead:\n%s", strings.Join(lines[i:i+12], "\n"))
			}
			row := 0 // 1-based line of the inner for statement
			for j := i + 2; j < len(lines) && row == 0; j++ {
				if strings.Contains(lines[j], "for (int64_t x1 = 0;") {
					row = j + 1
				}
			}
			ok := false
			for _, r := range strings.Split(art.VecReport, "\n") {
				if strings.HasPrefix(r, fmt.Sprintf("kernel.c:%d:", row)) && strings.Contains(r, "loop vectorized") {
					ok = true
				}
			}
			if !ok {
				t.Errorf("the gather's row loop at line %d is not reported vectorized:\n%s\n--- report:\n%s", row,
					strings.Join(lines[i:i+5], "\n"), art.VecReport)
			}
		}
	}
	if !gathered {
		t.Error("no index_select kernel in the forward program")
	}
	if !strings.Contains(code.String(), "scatter_add along dim 0") {
		t.Error("the table's gradient is not the generated scatter_add")
	}
}

// scatter_add with indices longer than the reduction form takes
// (testdata/scatter_long.json: along the last dim of a 2-D tensor, the
// middle dim of a 3-D one, and from a transposed src, with repeated
// indices) is the generated C of render/scatter_extern.go, and its values
// equal the eager interpreter's.
func TestScatterAddLongCompiled(t *testing.T) {
	u := loadUnits(t, "testdata/scatter_long.json")[0]
	for _, lp := range u.Programs {
		src, _ := compiledMatch(t, u, lp, interp.Inputs{}, false)
		if n := strings.Count(src.Code, "scatter_add along dim 1"); n != 3 {
			t.Errorf("%d generated scatter_adds, want 3:\n%s", n, src.Code)
		}
	}
}

// compiledMatch renders and builds one program, fails the test on an
// eager fallback step or on values that differ from the eager
// interpreter's, and returns the source and the built artifact.
func compiledMatch(t *testing.T, u *stages.Unit, lp *stages.LoopProgram, saved interp.Inputs, vec bool) (*render.Source, *compiler.Artifact) {
	t.Helper()
	src := renderLP(t, u, lp)
	for _, st := range src.Manifest.Steps {
		if st.Kind == "fallback" {
			t.Errorf("%s: %s (%s) runs in the eager fallback", lp.Role, st.IRNode, st.Op)
		}
	}
	art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: vec})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := checkNumbers(t, art, u, lp, saved); err != nil || !ok {
		t.Errorf("%s: compiled values differ from the eager interpreter: %v", lp.Role, err)
	}
	return src, art
}
