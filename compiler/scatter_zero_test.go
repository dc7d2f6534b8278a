package compiler_test

import (
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/loopir"
)

// An embedding's gradient is scatter_add(full(size, 0.0), 0, ids, grad):
// the generated scatter_add writes the zeros itself, so the full's kernel
// (a whole table of zeros nobody reads) is dropped and its buffer gets no
// memory (render/scatter_zero.go); the gradient still equals the eager
// interpreter's. The schedule itself keeps the full's kernel: the test
// fails if the fixture stops having one to drop.
func TestScatterAddZeroFullElided(t *testing.T) {
	u := loadUnits(t, "testdata/gather_rows.json")[0]
	dropped := 0
	saved := interp.Inputs{} // the forward's saved values feed the backward
	for _, lp := range u.Programs {
		var fullBufs []string
		for _, n := range lp.Graph.Nodes {
			if n.Target == "aten.full" || n.Target == "full" {
				if v := lp.Loops.Values[n.Name]; v != nil {
					fullBufs = append(fullBufs, v.Buffer)
				}
			}
		}
		scheduled := map[string]bool{} // full buffers written by a scheduled kernel
		for _, k := range lp.Schedule.Kernels {
			for _, n := range k.Nodes {
				for _, w := range n.Writes {
					for _, b := range fullBufs {
						if w.Buffer == b && n.Kind == loopir.Pointwise {
							scheduled[b] = true
						}
					}
				}
			}
		}
		src, _ := compiledMatch(t, u, lp, saved, false)
		if len(scheduled) == 0 {
			continue
		}
		if !strings.Contains(src.Code, "scatter_add along dim 0") {
			t.Errorf("%s: no generated scatter_add", lp.Role)
		}
		for b := range scheduled {
			for _, spec := range src.Manifest.Buffers {
				if spec.Name == b {
					t.Errorf("%s: the zero table %s still has memory (%+v)", lp.Role, b, spec)
				}
			}
			if strings.Contains(src.Code, "b_"+b+"[") || strings.Contains(src.Code, "*b_"+b+")") || strings.Contains(src.Code, "*b_"+b+",") {
				t.Errorf("%s: a kernel still writes or takes the zero table %s:\n%s", lp.Role, b, src.Code)
			}
			dropped++
		}
		if strings.Contains(src.Code, "// origins: full\n") {
			t.Errorf("%s: the full's kernel is still emitted:\n%s", lp.Role, src.Code)
		}
	}
	if dropped == 0 {
		t.Error("no scheduled full(size, 0.0) kernel in the fixture's programs: nothing was tested")
	}
}
