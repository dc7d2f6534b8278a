package sched

import (
	"testing"

	"gcdbg/loopir"
)

// inlinedReaderProgram: k0 computes a; k1 fuses i = a*2, o = a+1 and
// z = i*o. With i read only by z (no output), the renderer inlines i into
// z, so i's load of a runs after o's store; with i an output, it runs at
// i's own position, before o.
func inlinedReaderProgram(iStored bool) (*loopir.Program, []*loopir.Kernel) {
	b := newProg()
	b.input("arg0_1", 8, 8)
	b.pw("a", []int64{8, 8}, rd("arg0_1", full(8, 8)))
	b.pw("i", []int64{8, 8}, rd("a", full(8, 8)))
	b.pw("o", []int64{8, 8}, rd("a", full(8, 8)))
	b.pw("z", []int64{8, 8}, rd("i", full(8, 8)), rd("o", full(8, 8)))
	b.pw("q", []int64{8, 8}, rd("o", full(8, 8)))
	if iStored {
		b.output("i")
	}
	b.output("z", "q")
	n := b.p.Nodes
	return b.p, []*loopir.Kernel{{Name: "k0", Nodes: n[:1]}, {Name: "k1", Nodes: n[1:4]}, {Name: "k2", Nodes: n[4:]}}
}

// LoadsRunBy places an inlined member at its latest reader, transitively,
// and a stored one (or a non-pointwise one) at its own position.
func TestLoadsRunByFollowsInlinedReaders(t *testing.T) {
	b := newProg()
	b.input("arg0_1", 4, 4)
	b.ext("m", "mm", loopir.Extern, []int64{4, 4}, "arg0_1")
	b.pw("i", []int64{4, 4}, rd("m", full(4, 4)))                      // read by j only
	b.pw("j", []int64{4, 4}, rd("i", full(4, 4)))                      // read by z only
	b.pw("s", []int64{4, 4}, rd("m", full(4, 4)))                      // stored (an output)
	b.pw("z", []int64{4, 4}, rd("j", full(4, 4)), rd("s", full(4, 4))) // stored (an output)
	b.output("s", "z")
	k := &loopir.Kernel{Name: "k0", Nodes: b.p.Nodes}
	got := LoadsRunBy(b.p, k, func(string) bool { return false })
	want := map[string]int{"m": 0, "i": 4, "j": 4, "s": 3, "z": 4}
	for _, n := range k.Nodes {
		if got[n] != want[n.Name] {
			t.Errorf("%s runs its loads by %d, want %d", n.Name, got[n], want[n.Name])
		}
	}
}

// o may not overwrite a in place while an inlined member that reads a runs
// after o's store (the wrong value the memory plan gave
// runner/testdata/inplace_order.json's z); a stored reader before o does
// not stop it.
func TestNoInPlaceUnderAnInlinedReader(t *testing.T) {
	p, ks := inlinedReaderProgram(false)
	m := Plan(p, ks)
	if r := row(m, "o"); r.Reuse == "inplace" {
		t.Errorf("o overwrote a in place although i, inlined into z, reads a after o's store\n%s", m.Table())
	}
	p, ks = inlinedReaderProgram(true)
	m = Plan(p, ks)
	if r := row(m, "o"); r.Reuse != "inplace" || r.Storage != "a" {
		t.Errorf("o: %+v, want in place over a (i is stored before o's store)\n%s", r, m.Table())
	}
}

// A buffer another member writes first (a GEMM writing its epilogue's
// output, render/gemm_inplace.go, through Elisions.Writes) is never put in
// place over an input of the epilogue: the GEMM's store would overwrite it
// before the epilogue reads it.
func TestNoInPlaceWhenAGEMMWritesTheOutput(t *testing.T) {
	b := newProg()
	b.input("arg0_1", 8, 8)
	b.pw("c", []int64{8, 8}, rd("arg0_1", full(8, 8)))
	mm := b.ext("x", "mm", loopir.Extern, []int64{8, 8}, "arg0_1")
	b.pw("o", []int64{8, 8}, rd("x", full(8, 8)), rd("c", full(8, 8)))
	b.pw("q", []int64{8, 8}, rd("o", full(8, 8)))
	b.output("q")
	n := b.p.Nodes
	ks := []*loopir.Kernel{{Name: "k0", Nodes: n[:1]}, {Name: "k1", Nodes: n[1:3]}, {Name: "k2", Nodes: n[3:]}}
	if r := row(Plan(b.p, ks), "o"); r.Reuse != "inplace" || r.Storage != "c" {
		t.Fatalf("test premise: without the GEMM writing o, o goes in place over c: %+v", r)
	}
	el := &Elisions{Notes: map[string]string{"x": "the GEMM writes o"}, Writes: map[*loopir.Node][]string{mm: {"o"}}}
	m := PlanElided(b.p, ks, el)
	if r := row(m, "o"); r.Reuse == "inplace" {
		t.Errorf("o in place over c although the GEMM writes o before o's node reads c\n%s", m.Table())
	}
}
