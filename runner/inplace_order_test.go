package runner

import (
	"strings"
	"testing"

	"gcdbg/loopir"
	"gcdbg/render"
)

// A store may overwrite a value only once every member of the kernel
// that loads it has run, and the C renderer runs an inlined member where
// a later member loads it, not at its own place in the kernel
// (sched.LoadsRunBy). testdata/models/inplace_order.py fuses two kernels
// [mm, a = c*m, o = c+m, z = a*o] and [mm, u = p*b, t = tanh(p), z2 = u*t]
// where a and u are inlined into z and z2: the memory plan put o in place
// over c (z read o where a needed c) and the GEMM wrote t, the epilogue's
// intermediate, itself (z2 read tanh(p) where u needed p). Neither happens
// now: the GEMMs write z and z2, the graph outputs whose store runs last,
// nothing is in place, and every output matches PyTorch and the eager
// interpreter (both were MISMATCHes of up to 38 and 46).
func TestStoresWaitForInlinedReaders(t *testing.T) {
	tr, units, _ := renderFirstProgram(t, "testdata/inplace_order.json")
	lp := units[0].Programs[0]
	plan := render.PlanMemory(lp.Loops, lp.Schedule.Kernels, render.C)
	folds := map[string]bool{}
	for _, b := range plan.Buffers {
		if b.Reuse == "inplace" {
			t.Errorf("%s is in place over %s:\n%s", b.Name, b.Storage, plan.Table())
		}
		if y, ok := strings.CutPrefix(b.Note, "the GEMM writes "); ok {
			folds[strings.TrimSuffix(strings.Fields(y)[0], ",")] = true
		}
	}
	// The premise: both kernels fuse the four nodes, and the GEMMs write
	// the graph outputs z and z2 (mul_1, mul_3).
	fused := 0
	for _, k := range lp.Schedule.Kernels {
		if len(k.Nodes) == 4 && k.Nodes[0].Kind == loopir.Extern {
			fused++
		}
	}
	outs := lp.Loops.Outputs
	if fused != 2 || len(outs) != 4 || !folds[outs[0]] || !folds[outs[2]] || len(folds) != 2 {
		t.Errorf("test premise: two GEMM kernels with three epilogue nodes (%d), the GEMMs writing outputs 0 and 2 of %v: %v\n%s", fused, outs, folds, plan.Table())
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "compiled" || !res.OK {
		t.Fatalf("backend %q: does not match:\n%s", res.Backend, res.Summary())
	}
	if len(res.Graphs) != 1 || len(res.Graphs[0].Outputs) != 4 {
		t.Fatalf("want one graph with 4 outputs: %+v", res.Graphs)
	}
	checkAllMatch(t, res.Graphs[0], "")
}
