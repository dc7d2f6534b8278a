package runner

import (
	"strings"
	"testing"

	"gcdbg/render"
)

// A GEMM whose epilogue's output is a cat's input (an LSTM's backward: each
// step's four gate gradients, written by the hidden GEMM's epilogue, are
// cat into one [B, 4H] gradient) does not write that output in place
// (render/gemm_inplace.go) when the cat fold would have the epilogue store
// it straight into the cat's output (render/slice_scatter_fold.go): the
// fold wants a pointwise writer, and the GEMM writing the buffer brought
// back copy kernels (lstm_train: 219 kernels instead of 173 once the
// in-place fold also took GEMMs after their epilogue's inputs, 85ea58e).
// real2_lstm (nn.LSTM and nn.RNN, exported from PyTorch): its backward's
// gate stacks are placed, and it still matches PyTorch and the eager
// interpreter.
func TestGEMMInPlaceLeavesCatInputsToTheCatFold(t *testing.T) {
	t.Setenv("GCDBG_AUTOTUNE", "0")
	tr, units := loadCompiledUnits(t, "../stages/testdata/real2/real2_lstm.json")
	bwd := backwardProgram(t, units[0])
	plan := render.PlanMemory(bwd.Loops, bwd.Schedule.Kernels, render.C)
	inPlace, placed := 0, 0
	for _, b := range plan.Buffers {
		switch {
		case strings.HasPrefix(b.Note, "the GEMM writes ") && strings.Contains(b.Note, "which its epilogue updates in place"):
			inPlace++
		case strings.Contains(b.Note, "straight into its place in"):
			placed++
		}
	}
	// The gate-gradient stacks' inputs are placed by their epilogues (71
	// buffers; 27, and 21 cat copy kernels instead of 10, when the GEMMs
	// wrote them in place); the GEMMs write the other epilogue outputs in
	// place.
	if placed != 71 || inPlace == 0 {
		t.Errorf("backward: %d buffers placed by the cat fold (want 71; 27 when the GEMMs wrote the gate gradients in place), %d GEMMs writing in place", placed, inPlace)
	}
	runCompiledMatches(t, tr, units)
}
