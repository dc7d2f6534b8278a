package interp

import (
	"testing"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Run and RunWith drop each value after the last node that reads it (a
// training graph's temporaries are not all held at once: a WaveNet at
// B8 x T4096 held 11 GB in float64), and return the same outputs as Eval,
// which keeps every node's value: a view of a dropped value keeps its
// storage, an in-place op's input is dropped only after its last reader.
func TestRunDropsDeadValues(t *testing.T) {
	x := tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{-1, 0.5, 2, 3, -4, 0.25})
	g := &ir.Graph{Name: "g", Tensors: map[string]*ir.TensorData{"x": {T: x}}}
	node := func(name, op string, args ...ir.Arg) *ir.Node {
		n := &ir.Node{Name: name, Op: ir.CallFunction, Target: op, Args: args}
		g.Nodes = append(g.Nodes, n)
		return n
	}
	px := &ir.Node{Name: "x", Op: ir.Placeholder, Target: "x"}
	g.Nodes = append(g.Nodes, px)
	a := node("a", "aten.exp", px)
	b := node("b", "aten.mul", a, a)
	v := node("v", "aten.view", b, ir.Tuple{int64(3), int64(2)})
	node("unused", "aten.neg", b)
	c := node("c", "aten.add_", a, int64(1)) // a's last reader mutates it
	d := node("d", "aten.sum", c, nil, false, nil)
	g.Nodes = append(g.Nodes, &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{ir.Tuple{v, d}}})

	all, err := Eval(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	env, err := evalWith(g, nil, nil, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []*ir.Node{px, a, b, c} {
		if _, ok := env[n]; ok {
			t.Errorf("%s is still held after its last reader", n.Name)
		}
	}
	if len(env) != 3 { // v, d and the output node
		t.Errorf("%d values held at the end, want 3 (v, d, output)", len(env))
	}
	got, err := Run(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []*ir.Node{v, d} {
		w := all[n].(*tensor.Tensor)
		r := got[i].(*tensor.Tensor)
		if r.Numel() != w.Numel() {
			t.Fatalf("%s: %d elements, want %d", n.Name, r.Numel(), w.Numel())
		}
		for k := 0; k < w.Numel(); k++ {
			if r.Flat(k) != w.Flat(k) {
				t.Errorf("%s[%d] = %v, want %v", n.Name, k, r.Flat(k), w.Flat(k))
			}
		}
	}
}
