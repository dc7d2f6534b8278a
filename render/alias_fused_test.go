package render_test

import (
	"testing"

	"gcdbg/ir"
	"gcdbg/render"
)

// A copy of a whole saved input fused into a kernel that reads the same
// input (transformer_block's ln_1 pass and its saved primals_1; a
// cross-entropy's logits in the row-max pass) leaves that kernel: the
// output is the input's slot, as for an unfused copy. The values are
// checked against PyTorch by runner's compiled fixture tests.
func TestFusedInputCopyAliased(t *testing.T) {
	units := loadUnits(t, "../fixtures/transformer_block.json")
	for _, lp := range units[0].Programs {
		if lp.Role != "forward" {
			continue
		}
		src := renderLP(t, units[0], lp, render.C, render.Options{})
		for _, k := range src.Kernels {
			if len(k.Origins) > 1 {
				for _, o := range k.Origins {
					if o == "primals_1" {
						t.Errorf("kernel %s still copies primals_1 (origins %v)", k.Name, k.Origins)
					}
				}
			}
		}
		// Every forward output that is a graph input is that input's slot.
		want := 0
		for _, a := range lp.Graph.Outputs() {
			if n, ok := a.(*ir.Node); ok && n.Op == ir.Placeholder {
				want++
			}
		}
		if got := inputSlotOutputs(src); want == 0 || got != want {
			t.Errorf("%d forward outputs are input slots, want %d (every saved input)", got, want)
		}
		return
	}
	t.Fatal("no forward graph")
}

// inputSlotOutputs counts the manifest's outputs that are input slots.
func inputSlotOutputs(src *render.Source) int {
	inputs := map[int]bool{}
	for _, s := range src.Manifest.Inputs {
		inputs[s] = true
	}
	n := 0
	for _, s := range src.Manifest.Outputs {
		if inputs[s] {
			n++
		}
	}
	return n
}
