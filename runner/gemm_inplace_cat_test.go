package runner

import (
	"strings"
	"testing"

	"gcdbg/render"
	"gcdbg/stages"
)

// A GEMM whose epilogue's output is a cat's input (an LSTM's backward: each
// step's four gate gradients, written by the hidden GEMM's epilogue, are
// cat into one [B, 4H] gradient) does not write that output in place
// (render/gemm_inplace.go) when the cat fold would have the epilogue store
// it straight into the cat's output (render/slice_scatter_fold.go): the
// fold wants a pointwise writer, and the GEMM writing the buffer brought
// back a copy kernel per cat (lstm_train: 173 kernels, 71 with the
// placement). real2_lstm (nn.LSTM and nn.RNN, exported from PyTorch): its
// backward's forward-order gate stacks are placed, and it still matches
// PyTorch and the eager interpreter.
func TestGEMMInPlaceLeavesCatInputsToTheCatFold(t *testing.T) {
	t.Setenv("GCDBG_AUTOTUNE", "0")
	tr, units := loadUnits(t, "../stages/testdata/real2/real2_lstm.json")
	var bwd *stages.LoopProgram
	for _, lp := range units[0].Programs {
		if lp.Role == stages.RoleBackward {
			bwd = lp
		}
	}
	if bwd == nil {
		t.Fatal("no backward program")
	}
	plan := render.PlanMemory(bwd.Loops, bwd.Schedule.Kernels, render.C)
	inPlace := map[string]bool{}
	for _, b := range plan.Buffers {
		if y, ok := strings.CutPrefix(b.Note, "the GEMM writes "); ok && strings.Contains(y, "which its epilogue updates in place") {
			inPlace[strings.TrimSuffix(strings.Fields(y)[0], ",")] = true
		}
	}
	src, err := render.Render(bwd.Loops, bwd.Schedule.Kernels, bwd.Memory, render.C, render.Options{Trace: "real2_lstm", Graph: units[0].Captured.Name, Role: bwd.Role})
	if err != nil {
		t.Fatal(err)
	}
	// The stacks of per-step gate gradients (cat_26, cat_10, cat_2: forward
	// order) are placed by their epilogues; those whose inputs a second cat
	// reads (the reversed stacks) still copy.
	if cats := strings.Count(src.Code, "cat: one copy loop per input"); cats != 6 || len(inPlace) == 0 {
		t.Errorf("backward: %d cat copy kernels (want 6; 10 when the GEMMs wrote the gate gradients in place), %d GEMMs writing in place", cats, len(inPlace))
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
}
