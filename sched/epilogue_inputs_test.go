package sched

import (
	"testing"

	"gcdbg/loopir"
)

// geluBackward: dA = (g @ W) * f(a), f(a) a pointwise recomputation from
// the saved a (buf1, buf2), read only by the mm's epilogue (buf3).
func geluBackward(alsoRead bool) *loopir.Program {
	b := newProg()
	b.input("g", 8, 16)
	b.input("w", 16, 32)
	b.input("a", 8, 32)
	b.pw("buf1", []int64{8, 32}, rd("a", full(8, 32)))
	b.pw("buf2", []int64{8, 32}, rd("buf1", full(8, 32)))
	b.ext("buf0", "mm", loopir.Extern, []int64{8, 32}, "g", "w")
	b.pw("buf3", []int64{8, 32}, rd("buf0", full(8, 32)), rd("buf2", full(8, 32)))
	b.output("buf3")
	if alsoRead {
		// another kernel reads the recomputation too: it is stored
		b.red("buf4", []int64{8}, []int64{32}, rd("buf2", rfull([]int64{8}, 32)))
		b.output("buf4")
	}
	return b.p
}

// The pointwise inputs of an mm's epilogue join the mm's kernel (sched/
// epilogue_inputs.go): one kernel, fused as an extern-epilogue input,
// and its members still come in dependence order.
func TestEpilogueInputsJoinTheGEMM(t *testing.T) {
	s := schedule(t, geluBackward(false))
	if len(s.Kernels) != 1 {
		t.Fatalf("kernels %d -> %d, want 1\n%s", len(s.Before), len(s.Kernels), s.Log())
	}
	found := false
	for _, d := range s.Decisions {
		found = found || d.Action == "fuse" && d.Category == ExternEpilogueInput
	}
	if !found {
		t.Errorf("no %q fusion:\n%s", ExternEpilogueInput, s.Log())
	}

	// Read by another kernel as well, the recomputation stays a kernel of
	// its own (fused, it would wait for the GEMM and still be stored).
	s = schedule(t, geluBackward(true))
	if kernelWith(s, "buf2") == kernelWith(s, "buf0") {
		t.Errorf("a buffer read outside the epilogue joined the GEMM:\n%s", s.PostFusion())
	}
	// A producer of the mm's operand is a prologue: still refused (the
	// seed MLP's relu into the next mm, TestMLPEpiloguesFuseOntoGEMM).
	s = schedule(t, mlp())
	if kernelWith(s, "buf2") == kernelWith(s, "buf3") {
		t.Errorf("the mm's operand joined its kernel:\n%s", s.PostFusion())
	}
}
