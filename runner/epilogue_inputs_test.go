package runner

import (
	"path/filepath"
	"testing"

	"gcdbg/sched"
)

// GELU's backward recomputes erf(a/√2) (tanh for the tanh form) from the
// saved pre-activation, and the mm's epilogue (dY·W times the derivative)
// is its only reader: the recomputation joins the mm's kernel as an input
// of the epilogue (sched/epilogue_inputs.go) instead of storing its
// buffers for the epilogue to read back; so does a SwiGLU's recomputed
// sigmoid (Llama's MLP). Feed-forward layers in training with both GELUs
// and a SwiGLU (testdata/models/gelu_ffn_train.py, exported from PyTorch)
// do it, and their outputs and gradients still match PyTorch and the eager
// interpreter.
func TestGELURecomputeJoinsGEMMEpilogue(t *testing.T) {
	t.Setenv("GCDBG_AUTOTUNE", "0")
	tr, units := loadCompiledUnits(t, filepath.Join("testdata", "gelu_ffn_train.json"))
	// the recomputed derivatives' erf, tanh and sigmoid, each in an mm's kernel
	withMM := map[string]bool{}
	fused := 0
	for _, lp := range units[0].Programs {
		for _, d := range lp.Schedule.Decisions {
			if d.Action == "fuse" && d.Category == sched.ExternEpilogueInput {
				fused++
			}
		}
		for _, k := range lp.Schedule.Kernels {
			mm := false
			for _, n := range k.Nodes {
				mm = mm || n.Op == "mm"
			}
			for _, n := range k.Nodes {
				for _, o := range n.Origins {
					if o == "_1_erf" || o == "_4_tanh" || o == "silu_sigmoid" {
						withMM[o] = withMM[o] || mm
					}
				}
			}
		}
	}
	if fused == 0 || !withMM["_1_erf"] || !withMM["_4_tanh"] || !withMM["silu_sigmoid"] {
		t.Fatalf("%d extern-epilogue input fusions; erf, tanh and sigmoid computed with an mm: %v", fused, withMM)
	}
	runCompiledMatches(t, tr, units)
}
