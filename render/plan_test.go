package render_test

import (
	"strings"
	"testing"

	"gcdbg/loopir"
	"gcdbg/render"
)

// The memory stage's plan is what the rendered program allocates: a
// buffer the renderer elides (the MLP's transposed weight-gradient GEMM
// results, its forward's saved inputs, gather_rows' zero table for the
// scatter_add) is listed as not allocated, and every buffer the plan
// allocates has a slot in the manifest.
func TestMemoryPlanMatchesRenderedBuffers(t *testing.T) {
	wantNotes := map[string]string{
		"../fixtures/mlp.json":                  "the GEMM writes",
		"../fixtures/transformer_block.json":    "'s slot is this output",
		"../compiler/testdata/gather_rows.json": "written by the scatter_add itself",
	}
	for path, want := range wantNotes {
		units := loadUnits(t, path)
		seen := false
		for _, lp := range units[0].Programs {
			src := renderLP(t, units[0], lp, render.C, render.Options{})
			slots := map[string]bool{}
			for _, b := range src.Manifest.Buffers {
				slots[b.Name] = true
			}
			for _, row := range lp.Memory.Buffers {
				switch {
				case row.Note != "":
					seen = seen || strings.Contains(row.Note, want)
					if slots[row.Name] {
						t.Errorf("%s %s: %s is listed as not allocated (%s) but has a slot", path, lp.Role, row.Name, row.Note)
					}
					if !strings.Contains(lp.Memory.Table(), row.Name) || !strings.Contains(lp.Memory.Table(), "not allocated: "+row.Note) {
						t.Errorf("%s %s: the table does not show %s's note", path, lp.Role, row.Name)
					}
				case row.Materialized && (row.Kind == loopir.Intermediate || row.Kind == loopir.Output):
					if !slots[row.Name] {
						t.Errorf("%s %s: the plan allocates %s but the manifest has no slot for it", path, lp.Role, row.Name)
					}
				}
			}
		}
		if !seen {
			t.Errorf("%s: no buffer is listed as not allocated with a note containing %q", path, want)
		}
	}
}
