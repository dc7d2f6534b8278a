package stages

import (
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
)

// BatchNorm's backward shape: the centred input computed twice (sub,
// sub_1) and the gradient times it twice (mul_1, mul_2), each pair merged
// into one node by cseGraph; a node the graph returns is kept even when it
// repeats another, and so is anything that is not a plain pointwise op.
// The merged graph computes the very same values (interp, bit for bit).
func TestCSEGraphMergesDuplicatePointwise(t *testing.T) {
	b := newHandJoint(t, "bn_like")
	x := b.primal("primals_1", "x", 4, 3, 5)
	m := b.primal("primals_2", "m", 1, 3, 1)
	tg := b.placeholder("tangents_1", "tangents_1", tensor.New(tensor.Float32, 4, 3, 5))
	sub := b.call("sub", "aten.sub", x, m)
	sub1 := b.call("sub_1", "aten.sub", x, m)
	mul1 := b.call("mul_1", "aten.mul", tg, sub)
	mul2 := b.call("mul_2", "aten.mul", tg, sub1) // a duplicate once sub_1 is sub
	s := b.call("sum_1", "aten.sum", b.call("add", "aten.add", mul1, mul2), ir.Tuple{int64(0), int64(2)}, true)
	s2 := b.call("sum_2", "aten.sum", b.call("add_1", "aten.add", mul1, mul2), ir.Tuple{int64(0), int64(2)}, true) // a reduction: kept
	ret := b.call("mul_3", "aten.mul", tg, sub)                                                                    // returned: kept though it repeats mul_1
	gx := b.call("add_2", "aten.add", b.call("mul_4", "aten.mul", s, sub1), b.call("mul_5", "aten.mul", s2, mul2))
	j := b.joint([]*ir.Node{ret}, []*ir.Node{gx}, []string{"x"})
	g := cseGraph(j.Graph)
	if g == j.Graph {
		t.Fatal("nothing merged")
	}
	var names []string
	for _, n := range g.Nodes {
		names = append(names, n.Name)
	}
	for _, gone := range []string{"sub_1", "mul_2", "add_1"} {
		if g.Node(gone) != nil {
			t.Errorf("%s not merged: %v", gone, names)
		}
	}
	for _, kept := range []string{"sub", "mul_1", "sum_1", "sum_2", "mul_3", "mul_4", "mul_5", "add_2"} {
		if g.Node(kept) == nil {
			t.Errorf("%s dropped: %v", kept, names)
		}
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	in := tangentValues(j)
	want, err := interp.Run(j.Graph, in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := interp.Run(g, in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !identical(got[i], want[i]) {
			t.Errorf("value %d differs after merging: %v vs %v", i, got[i], want[i])
		}
	}
	if j.Graph.Node("sub_1") == nil || len(j.Graph.Nodes) != len(names)+3 {
		t.Errorf("the input graph was changed: %d nodes", len(j.Graph.Nodes))
	}
}
