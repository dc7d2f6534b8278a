package loopir

import (
	"math/rand"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/tensor"
)

// A dynamic first dimension (s0) stays symbolic in ranges, strides and
// indices, and the interpreter takes its value from the actual input.
func TestSymbolicSizes(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	b := newGB(t, "dyn")
	x := b.input("x", randT(rng, tensor.Float32, 8, 6))
	s := b.call("sin", x)
	sm := b.call("sum", s, ir_tuple(1), true)
	d := b.call("div", s, sm)
	tr := b.call("permute", d, ir_tuple(1, 0))
	r := b.call("relu", tr)
	g := b.output(r, sm)
	for _, n := range g.Nodes {
		if m := n.Meta.Tensor; m != nil {
			for i := range m.Shape {
				if m.Shape[i].Size == 8 {
					m.Shape[i].Sym = "s0"
				}
			}
		}
	}
	p, err := Lower(g)
	if err != nil {
		t.Fatal(err)
	}
	out := Print(p)
	for _, want := range []string{"size=[s0, 6], stride=[6, 1]", "size=[6, s0], stride=[s0, 1]", "load(buf2, 6*x1 + x0)"} {
		if !strings.Contains(out, want) {
			t.Errorf("printout lacks %q:\n%s", want, out)
		}
	}
	x5 := randT(rng, tensor.Float32, 5, 6)
	want, err := interp.Run(g, interp.Inputs{"x": x5})
	if err != nil {
		t.Fatal(err)
	}
	for _, ks := range [][]*Kernel{nil, fuseAll(p)} {
		got, err := Run(p, ks, map[string]*tensor.Tensor{"arg0_1": x5})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if c := interp.Compare(got[i], want[i].(*tensor.Tensor), tol(tensor.Float32)); !c.Match {
				t.Errorf("output %d: %+v", i, c)
			}
		}
	}
}

// Bad inputs are errors naming the buffer, never panics.
func TestRunRejectsBadInputs(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	b := newGB(t, "bad")
	x := b.input("x", randT(rng, tensor.Float32, 2, 3))
	p, err := Lower(b.output(b.call("exp", x)))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []map[string]*tensor.Tensor{{}, {"arg0_1": randT(rng, tensor.Float32, 3, 3)}, {"arg0_1": randT(rng, tensor.Int64, 2, 3)}} {
		if _, err := Run(p, nil, in); err == nil || !strings.Contains(err.Error(), "arg0_1") {
			t.Errorf("want an error naming arg0_1, got %v", err)
		}
	}
}
