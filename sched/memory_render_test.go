package sched

import (
	"testing"

	"gcdbg/loopir"
)

// The renderer's rules the plan follows (render.PlanMemory; the rendered
// program's own check is render's TestMemoryPlanStatusesAndPeakAreRendered).

// A buffer allocated alone (Elisions.Own: a graph output) takes no dead
// buffer's storage and is not written in place over its dying input; an
// intermediate still is.
func TestOwnBuffersShareNoStorage(t *testing.T) {
	b := newProg()
	b.input("arg0_1", 16, 16)
	b.pw("a", []int64{16, 16}, rd("arg0_1", full(16, 16)))
	b.pw("b", []int64{16, 16}, rd("a", full(16, 16)))
	b.pw("c", []int64{16, 16}, rd("b", full(16, 16)))
	b.output("c")
	s := schedule(t, b.p)
	m := PlanElided(b.p, s.Before, &Elisions{Own: map[string]bool{"c": true}})
	if r := row(m, "b"); r.Storage != "a" || r.Reuse != "inplace" {
		t.Errorf("b: %+v, want in place over a\n%s", r, m.Table())
	}
	if r := row(m, "c"); r.Storage != "c" || r.Reuse != "" {
		t.Errorf("c: %+v, want its own storage\n%s", r, m.Table())
	}
	size := int64(16 * 16 * 4)
	if m.AllocsAfter != 2 || m.PeakAfter != 2*size || m.PeakBefore != 3*size {
		t.Errorf("allocations %d, peak %d -> %d; want 2, %d -> %d\n%s", m.AllocsAfter, m.PeakBefore, m.PeakAfter, 3*size, 2*size, m.Table())
	}
}

// An extern call writes its whole result to memory even when only its
// epilogue, in the same kernel, reads it: the product is materialized
// (the renderer allocates it), and the epilogue may overwrite it in place.
func TestExternProductIsMaterialized(t *testing.T) {
	b := newProg()
	b.input("arg0_1", 8, 8)
	b.input("arg1_1", 8, 8)
	b.ext("mm", "mm", loopir.Extern, []int64{8, 8}, "arg0_1", "arg1_1")
	b.pw("e", []int64{8, 8}, rd("mm", full(8, 8)))
	b.pw("o", []int64{8, 8}, rd("e", full(8, 8)))
	b.output("o")
	k := []*loopir.Kernel{{Name: "k0", Nodes: b.p.Nodes[:2]}, {Name: "k1", Nodes: b.p.Nodes[2:]}}
	m := Plan(b.p, k)
	if r := row(m, "mm"); !r.Materialized || r.First != 0 || r.Last != 0 {
		t.Errorf("mm: %+v, want materialized in kernel 0\n%s", r, m.Table())
	}
	if r := row(m, "e"); r.Storage != "mm" || r.Reuse != "inplace" {
		t.Errorf("e: %+v, want in place over mm\n%s", r, m.Table())
	}
}

// A kernel with a reduction is rendered in passes over each row, and a
// later pass may recompute from an overwritten input: nothing in it is
// written in place.
func TestNoInPlaceInReductionKernel(t *testing.T) {
	b := newProg()
	b.input("arg0_1", 8, 16)
	b.pw("a", []int64{8, 16}, rd("arg0_1", full(8, 16)))
	b.red("s", []int64{8}, []int64{16}, rd("arg0_1", rfull([]int64{8}, 16)))
	b.pw("c", []int64{8, 16}, rd("a", full(8, 16)), rd("s", x0(8)))
	b.pw("d", []int64{8, 16}, rd("c", full(8, 16)))
	b.output("d")
	k := []*loopir.Kernel{{Name: "k0", Nodes: b.p.Nodes[:1]}, {Name: "k1", Nodes: b.p.Nodes[1:3]}, {Name: "k2", Nodes: b.p.Nodes[3:]}}
	m := Plan(b.p, k)
	if r := row(m, "c"); r.Reuse == "inplace" || !r.Materialized {
		t.Errorf("c: %+v, want materialized, not in place over a\n%s", r, m.Table())
	}
	// Without the reduction in its kernel, c goes in place over a.
	k = []*loopir.Kernel{{Name: "k0", Nodes: b.p.Nodes[:2]}, {Name: "k1", Nodes: b.p.Nodes[2:3]}, {Name: "k2", Nodes: b.p.Nodes[3:]}}
	if r := row(Plan(b.p, k), "c"); r.Reuse != "inplace" || r.Storage != "a" {
		t.Errorf("test premise: c in its own kernel goes in place over a: %+v", r)
	}
}
