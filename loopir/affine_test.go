package loopir

import (
	"math/rand"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"s0", "s0"},
		{"8*s0", "8*s0"},
		{"s0*784", "784*s0"},
		{"2*s0 + 1", "2*s0 + 1"},
		{"s0 - 1", "s0 - 1"},
		{"-s0+3", "-s0 + 3"},
		{"2*(s0 + 1)", "2*s0 + 2"},
		{"s0*s1 + 4*s1", "4*s1 + s0*s1"},
		{"12", "12"},
	} {
		e, err := ParseSize(c.in)
		if err != nil || e.String() != c.want {
			t.Errorf("ParseSize(%q) = %v, %v; want %s", c.in, e, err, c.want)
		}
	}
	for _, bad := range []string{"", "8*", "s0 +", "(s0", "s0)", "s0/2", "99999999999999999999*s0", "8 s0"} {
		if e, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %v, want an error", bad, e)
		}
	}
	for _, c := range []struct {
		in   string
		size int64
		sym  string
		v    int64
		ok   bool
	}{
		{"s0", 5, "s0", 5, true},
		{"8*s0", 40, "s0", 5, true},
		{"2*s0 + 1", 9, "s0", 4, true},
		{"8*s0", 41, "", 0, false},
		{"s0*s1", 6, "", 0, false},
		{"3", 3, "", 0, false},
	} {
		e, _ := ParseSize(c.in)
		sym, v, ok := SymHint(e, c.size)
		if sym != c.sym || v != c.v || ok != c.ok {
			t.Errorf("SymHint(%s = %d) = %s, %d, %v", c.in, c.size, sym, v, ok)
		}
	}
}

// A graph whose view folds s0 x 8 rows into 8*s0 (the attention's
// reshape) lowers with ranges and strides affine in s0, and runs at a
// size other than the hint.
func TestAffineSymbolicSizes(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	build := func(n int64) *ir.Graph {
		b := newGB(t, "affine")
		x := b.input("x", randT(rng, tensor.Float32, int(n), 8, 4))
		v := b.call("view", x, ir_tuple(8*n, 4))
		s := b.call("sin", v)
		sm := b.call("sum", s, ir_tuple(1), true)
		d := b.call("div", s, sm)
		tr := b.call("permute", d, ir_tuple(1, 0))
		r := b.call("relu", tr)
		return b.output(r, sm)
	}
	g := build(3)
	for _, n := range g.Nodes {
		if m := n.Meta.Tensor; m != nil {
			for i := range m.Shape {
				switch m.Shape[i].Size {
				case 3:
					m.Shape[i].Sym = "s0"
				case 24:
					m.Shape[i].Sym = "8*s0"
				}
			}
		}
	}
	p, err := Lower(g)
	if err != nil {
		t.Fatal(err)
	}
	out := Print(p)
	for _, want := range []string{"size=[s0, 8, 4]", "size=[8*s0, 1]", "size=[4, 8*s0], stride=[8*s0, 1]"} {
		if !strings.Contains(out, want) {
			t.Errorf("printout lacks %q:\n%s", want, out)
		}
	}
	// The reference is the same graph built at s0 = 5 (its view's
	// arguments are ints), run by the eager interpreter.
	x5 := randT(rng, tensor.Float32, 5, 8, 4)
	want, err := interp.Run(build(5), interp.Inputs{"x": x5})
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
				t.Errorf("output %d: %v %+v", i, got[i].Shape, c)
			}
		}
	}
	// A size that does not parse names the node.
	g.Nodes[1].Meta.Tensor.Shape[0].Sym = "8*s0 +"
	if _, err := Lower(g); err == nil || !strings.Contains(err.Error(), `node "`+g.Nodes[1].Name+`"`) {
		t.Errorf("bad size: %v", err)
	}
}
