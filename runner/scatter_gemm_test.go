package runner

import (
	"strings"
	"testing"

	"gcdbg/render"
)

// A tied embedding in training (testdata/models/tied_embed_grad.py,
// exported from PyTorch): the table's gradient is the LM head's weight
// gradient (an mm) plus the embedding's scatter_add of zeros. The mm
// writes the sum's buffer and the scatter_add adds only the rows its ids
// name, each row's additions summed from zero in index order
// (render/scatter_gemm.go): neither the product nor the scatter_add's
// zeros get memory and no kernel writes the zeros. Ids repeat and most
// rows get none; the gradients still match PyTorch and the eager
// interpreter.
func TestTiedEmbeddingGradAddedIntoGEMMOutput(t *testing.T) {
	t.Setenv("GCDBG_AUTOTUNE", "0")
	tr, units, _ := renderFirstProgram(t, "testdata/tied_embed_grad.json")
	bwd := backwardProgram(t, units[0])
	plan := render.PlanMemory(bwd.Loops, bwd.Schedule.Kernels, render.C)
	notes := 0
	for _, b := range plan.Buffers {
		if strings.Contains(b.Note, "scatter_gemm.go") {
			notes++
			if b.Materialized {
				t.Errorf("%s is noted as folded but still materialized", b.Name)
			}
		}
	}
	if notes != 2 {
		t.Errorf("%d buffers folded by scatter_gemm.go; want the head's product and the scatter_add's result", notes)
	}
	src, err := render.Render(bwd.Loops, bwd.Schedule.Kernels, bwd.Memory, render.C, render.Options{Trace: "tied_embed_grad", Graph: units[0].Captured.Name, Role: bwd.Role})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(src.Code, "(scatter_gemm.go) */") || strings.Contains(src.Code, "scatter_add along dim 0: out = self") {
		t.Errorf("the scatter_add is not added into the GEMM's output, or is still rendered as a whole table")
	}
	res := runCompiledMatches(t, tr, units)
	grads := 0
	for _, g := range res.Graphs {
		for _, gd := range g.Grads {
			if strings.Contains(gd.Name, "wte") {
				grads++
			}
		}
	}
	if grads != 1 {
		t.Errorf("%d gradients of the tied table compared; want 1", grads)
	}
}
