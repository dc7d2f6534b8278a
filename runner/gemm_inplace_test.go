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
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	t.Setenv("GCDBG_AUTOTUNE", "0")
	for name, path := range map[string]string{
		"mlp":               filepath.Join("..", "fixtures", "mlp.json"),
		"transformer_block": filepath.Join("..", "fixtures", "transformer_block.json"),
		"attn_bias":         attnBias,
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := trace.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			units, err := stages.Run(tr, "")
			if err != nil {
				t.Fatal(err)
			}
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
		})
	}
}
