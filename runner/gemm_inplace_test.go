package runner

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/render"
	"gcdbg/stages"
	"gcdbg/trace"
)

// A GEMM whose epilogue writes a buffer of the product's size (a graph
// output: a Linear's pre-activation saved for the backward; or an
// intermediate a later kernel reads) writes that buffer itself, and the
// epilogue updates it in place (render/gemm_inplace.go): the seed MLP's,
// the transformer block's and the attention GRU decoder's training steps
// (attn_bias, whose backward's intermediate folds once gave wrong
// gradients: an epilogue member inlined into a later one read the product
// after the fold target's store, sched.LoadsRunBy) do it, into outputs and
// intermediates, and their outputs, gradients and buffers still match
// PyTorch and the eager interpreter.
func TestGEMMWritesEpilogueOutputInPlace(t *testing.T) {
	t.Setenv("GCDBG_AUTOTUNE", "0")
	for name, path := range map[string]string{
		"mlp":               filepath.Join("..", "fixtures", "mlp.json"),
		"transformer_block": filepath.Join("..", "fixtures", "transformer_block.json"),
		"attn_bias":         attnBias,
	} {
		t.Run(name, func(t *testing.T) {
			tr, units := loadCompiledUnits(t, path)
			kinds := map[string]int{}
			for _, lp := range units[0].Programs {
				plan := render.PlanMemory(lp.Loops, lp.Schedule.Kernels, render.C)
				kind := map[string]string{}
				for _, b := range plan.Buffers {
					kind[b.Name] = string(b.Kind)
				}
				for _, b := range plan.Buffers {
					if y, ok := strings.CutPrefix(b.Note, "the GEMM writes "); ok && strings.Contains(y, "which its epilogue updates in place") {
						kinds[kind[strings.TrimSuffix(strings.Fields(y)[0], ",")]]++
					}
				}
			}
			if kinds["output"] == 0 || kinds["intermediate"] == 0 {
				t.Fatalf("GEMMs writing their epilogue's buffer in place, by the buffer's kind: %v; want outputs and intermediates", kinds)
			}
			runCompiledMatches(t, tr, units)
		})
	}
}

// loadCompiledUnits skips t without a C compiler (cc), and loads and
// stages the trace at path (loadUnits).
func loadCompiledUnits(t *testing.T, path string) (*trace.Trace, []*stages.Unit) {
	t.Helper()
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	return loadUnits(t, path)
}

// backwardProgram is u's backward program; t fails without one.
func backwardProgram(t *testing.T, u *stages.Unit) *stages.LoopProgram {
	t.Helper()
	var bwd *stages.LoopProgram
	for _, lp := range u.Programs {
		if lp.Role == stages.RoleBackward {
			bwd = lp
		}
	}
	if bwd == nil {
		t.Fatal("no backward program")
	}
	return bwd
}

// runCompiledMatches runs units compiled on the CPU and fails t unless the
// compiled backend ran and every graph's values match PyTorch and the
// eager interpreter (checkAllMatch).
func runCompiledMatches(t *testing.T, tr *trace.Trace, units []*stages.Unit) *Result {
	t.Helper()
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "compiled" || !res.OK {
		t.Fatalf("backend %q: does not match:\n%s", res.Backend, res.Summary())
	}
	for _, g := range res.Graphs {
		checkAllMatch(t, g, "")
	}
	return res
}
