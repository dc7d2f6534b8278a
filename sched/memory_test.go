package sched

import (
	"strings"
	"testing"

	"gcdbg/loopir"
)

func row(m *MemoryPlan, name string) BufferLife {
	for _, r := range m.Buffers {
		if r.Name == name {
			return r
		}
	}
	return BufferLife{}
}

// A chain a -> b -> c -> d run unfused: each step can overwrite its input
// in place, so the whole chain lives in a's buffer.
func TestChainReusesFirstBuffer(t *testing.T) {
	b := newProg()
	b.input("arg0_1", 16, 16)
	b.pw("a", []int64{16, 16}, rd("arg0_1", full(16, 16)))
	b.pw("b", []int64{16, 16}, rd("a", full(16, 16)))
	b.pw("c", []int64{16, 16}, rd("b", full(16, 16)))
	b.pw("d", []int64{16, 16}, rd("c", full(16, 16)))
	b.output("d")
	s := schedule(t, b.p)
	m := Plan(b.p, s.Before)
	for _, n := range []string{"b", "c", "d"} {
		if r := row(m, n); r.Storage != "a" || r.Reuse != "inplace" {
			t.Errorf("%s: %+v, want in place in a\n%s", n, r, m.Table())
		}
	}
	// The program holds its allocations for the whole call: four
	// buffers before planning, one storage after.
	size := int64(16 * 16 * 4)
	if m.PeakBefore != 4*size || m.PeakAfter != size {
		t.Errorf("peak %d -> %d, want %d -> %d\n%s", m.PeakBefore, m.PeakAfter, 4*size, size, m.Table())
	}
	// Fused, only the output is materialized.
	m = Plan(b.p, s.Kernels)
	if len(s.Kernels) != 1 || row(m, "b").Materialized || m.PeakAfter != size {
		t.Errorf("fused plan:\n%s", m.Table())
	}
}

// A dead buffer is reused by a later one of the same size when it cannot
// be overwritten in place (c reads b, not a, and b is smaller).
func TestReuseOfDeadBuffer(t *testing.T) {
	b := newProg()
	b.input("arg0_1", 8, 16)
	b.pw("a", []int64{8, 16}, rd("arg0_1", full(8, 16)))
	b.red("b", []int64{8}, []int64{16}, rd("a", rfull([]int64{8}, 16)))
	b.pw("c", []int64{8, 16}, rd("arg0_1", full(8, 16)), rd("b", x0(8)))
	b.output("c")
	m := Plan(b.p, []*loopir.Kernel{{Name: "k0", Nodes: b.p.Nodes[:1]}, {Name: "k1", Nodes: b.p.Nodes[1:2]}, {Name: "k2", Nodes: b.p.Nodes[2:]}})
	if r := row(m, "c"); r.Storage != "a" || r.Reuse != "reuse" {
		t.Errorf("c: %+v, want reuse of a\n%s", r, m.Table())
	}
	if r := row(m, "a"); r.First != 0 || r.Last != 1 {
		t.Errorf("a lives %d..%d, want 0..1", r.First, r.Last)
	}
	if !strings.Contains(m.Table(), "reuses a (dead by then)") {
		t.Errorf("table:\n%s", m.Table())
	}
}

func TestPeakNeverGrows(t *testing.T) {
	for name, p := range map[string]*loopir.Program{"sin_cos": sinCos(), "softmax": softmax(), "layer_norm": layerNorm(), "mlp": mlp()} {
		s := schedule(t, p)
		m := Plan(p, s.Kernels)
		if m.PeakAfter > m.PeakBefore || m.PeakAfter <= 0 {
			t.Errorf("%s: peak %d -> %d\n%s", name, m.PeakBefore, m.PeakAfter, m.Table())
		}
	}
}

// In-place is refused when a later member of the kernel reads the input
// after the output overwrote it.
func TestNoInPlaceWhenReadLater(t *testing.T) {
	b := newProg()
	b.input("arg0_1", 4, 4)
	b.pw("a", []int64{4, 4}, rd("arg0_1", full(4, 4)))
	b.pw("b", []int64{4, 4}, rd("a", full(4, 4)))
	b.pw("c", []int64{4, 4}, rd("a", full(4, 4)), rd("b", full(4, 4)))
	b.output("b", "c")
	m := Plan(b.p, []*loopir.Kernel{{Name: "k0", Nodes: b.p.Nodes[:1]}, {Name: "k1", Nodes: b.p.Nodes[1:]}})
	if r := row(m, "b"); r.Reuse == "inplace" {
		t.Errorf("b overwrote a although c reads a later in the kernel\n%s", m.Table())
	}
}
