package stages

import (
	"math"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
)

// BatchNorm's backward as the joint graph differentiates its decomposition
// (x [4, 3, 5], per-channel mean m, rstd r and weight w [1, 3, 1], incoming
// gradient g): five sums of [4, 3, 5] tensors, the fifth of a tensor
// computed from the third. simplifySums leaves three, sum(g), sum(g * xc)
// and sum(xc), none reading another's result, and never splits the centred
// difference (sum(x - m) as sum(x) - 5 * m would cancel). The values are
// those of the original graph up to rounding (float64 runs, 1e-12
// relative), with NaN and Inf at the same places when a gradient element
// is NaN, a weight 0 and a constant channel's rstd +Inf (eps 0); sum nodes the graph returns stay; the new nodes name
// the sums they replace.
func TestSimplifySumsBatchNormBackward(t *testing.T) {
	b := newHandJoint(t, "bn_bwd")
	x := b.primal("primals_1", "x", 4, 3, 5)
	m := b.primal("primals_2", "m", 1, 3, 1)
	r := b.primal("primals_3", "r", 1, 3, 1)
	w := b.primal("primals_4", "w", 1, 3, 1)
	gt := tensor.New(tensor.Float32, 4, 3, 5)
	g := b.placeholder("tangents_1", "tangents_1", gt)
	dims := ir.Tuple{int64(0), int64(2)}
	xc := b.call("sub", "aten.sub", x, m)
	gw := b.call("mul_1", "aten.mul", g, w)
	s1 := b.call("sum_1", "aten.sum", g, dims, true)
	s2 := b.call("sum_2", "aten.sum", b.call("mul_2", "aten.mul", g, b.call("mul_3", "aten.mul", xc, r)), dims, true)
	s3 := b.call("sum_3", "aten.sum", b.call("mul_4", "aten.mul", gw, xc), dims, true)
	s4 := b.call("sum_4", "aten.sum", b.call("neg", "aten.neg", b.call("mul_5", "aten.mul", gw, r)), dims, true)
	e := b.call("div", "aten.div", b.call("mul_6", "aten.mul", s3, b.call("mul_7", "aten.mul", b.call("pow", "aten.pow", r, 3.0), -0.5)), int64(20))
	ee := b.call("expand", "aten.expand", e, ir.Tuple{int64(4), int64(3), int64(5)})
	a := b.call("add", "aten.add", b.call("mul_8", "aten.mul", ee, xc), b.call("mul_9", "aten.mul", ee, xc))
	s5 := b.call("sum_5", "aten.sum", b.call("neg_1", "aten.neg", a), dims, true)
	dmean := b.call("div_1", "aten.div", b.call("add_1", "aten.add", s4, s5), int64(20))
	dx := b.call("add_3", "aten.add", b.call("add_2", "aten.add", b.call("mul_10", "aten.mul", gw, r), a), b.call("expand_1", "aten.expand", dmean, ir.Tuple{int64(4), int64(3), int64(5)}))
	dw := b.call("view", "aten.view", s2, ir.Tuple{int64(3)})
	db := b.call("view_1", "aten.view", s1, ir.Tuple{int64(3)})
	kept := b.call("sum_6", "aten.sum", xc, dims, true) // returned: stays, though sum(xc) is made for sum_5
	j := b.joint(nil, []*ir.Node{dx, dw, db, kept}, []string{"x", "w", "b", "k"})

	fullSums := func(g *ir.Graph) []*ir.Node {
		var out []*ir.Node
		for _, n := range g.Nodes {
			if n.Target == "aten.sum" {
				if in, _ := n.Args[0].(*ir.Node); in != nil && numelOf(in.Meta.Tensor.Shape.Sizes()) == 60 && n.Name != "sum_6" {
					out = append(out, n)
				}
			}
		}
		return out
	}
	if n := len(fullSums(j.Graph)); n != 5 {
		t.Fatalf("test premise: %d full sums in the joint, want 5", n)
	}
	sg, aliases := simplifySums(j.Graph)
	if err := sg.Validate(); err != nil {
		t.Fatal(err)
	}
	sums := fullSums(sg)
	var got []string
	for _, s := range sums {
		in := s.Args[0].(*ir.Node)
		desc := in.Name
		if in.Target == "aten.mul" {
			desc = in.Args[0].(*ir.Node).Name + "*" + in.Args[1].(*ir.Node).Name
		}
		got = append(got, desc)
	}
	if strings.Join(got, " ") != "tangents_1 tangents_1*sub sub" {
		t.Errorf("full sums of %v, want of tangents_1, tangents_1*sub, sub (g, g * xc, xc)", got)
	}
	// no full sum reads another's result, and none reads x itself
	full := map[*ir.Node]bool{}
	for _, s := range sums {
		full[s] = true
	}
	for _, s := range sums {
		seen := map[*ir.Node]bool{}
		var walk func(n *ir.Node)
		walk = func(n *ir.Node) {
			n.EachInput(func(in *ir.Node) {
				if seen[in] {
					return
				}
				seen[in] = true
				if full[in] || in.Name == "sum_3" {
					t.Errorf("%s waits for the full sum %s", s.Name, in.Name)
				}
				walk(in)
			})
		}
		walk(s)
		if s.Args[0] == x {
			t.Errorf("%s sums x itself: the centred difference was split", s.Name)
		}
	}
	if sg.Node("sum_6") == nil {
		t.Error("the returned sum_6 was rewritten")
	}
	for _, name := range []string{"sum_2", "sum_3", "sum_4", "sum_5"} {
		if n := sg.Node(name); n == nil || n.Target == "aten.sum" {
			t.Errorf("%s: want the rewritten sum's value under its name, got %v", name, n)
		}
	}
	if a := aliases[sums[1].Name]; strings.Join(a, ",") != "sum_2,sum_3" {
		t.Errorf("sum(g * xc) stands for %v, want sum_2 and sum_3", a)
	}
	if a := aliases["sum_1"]; strings.Join(a, ",") != "sum_1,sum_4" {
		t.Errorf("sum_1 stands for %v, want sum_1 and sum_4", a)
	}

	for _, bad := range []bool{false, true} {
		in := tangentValues(j)
		opt := interp.Options{Precision: interp.Float64}
		if bad {
			// A NaN gradient element in channel 1; channel 2 constant
			// (x = m there) with eps 0, so its rstd is +Inf as a real
			// BatchNorm's would be; a zero weight in channel 0.
			tg := in["tangents_1"].(*tensor.Tensor)
			tg.SetFlat(1*15+5+2, math.NaN())
			xv, mv := j.Graph.Tensors["x"].T.Clone(), j.Graph.Tensors["m"].T
			for n := 0; n < 4; n++ {
				for k := 0; k < 5; k++ {
					xv.SetFlat(n*15+2*5+k, mv.Flat(2))
				}
			}
			rv, wv := j.Graph.Tensors["r"].T.Clone(), j.Graph.Tensors["w"].T.Clone()
			rv.SetFlat(2, math.Inf(1))
			wv.SetFlat(0, 0)
			in["x"], in["r"], in["w"] = xv, rv, wv
		}
		want, err := interp.RunWith(j.Graph, in, opt)
		if err != nil {
			t.Fatal(err)
		}
		gotV, err := interp.RunWith(sg, in, opt)
		if err != nil {
			t.Fatal(err)
		}
		nonFinite := 0
		for _, v := range want {
			vt := v.(*tensor.Tensor)
			for i := 0; i < vt.Numel(); i++ {
				if f := vt.Flat(i); math.IsNaN(f) || math.IsInf(f, 0) {
					nonFinite++
				}
			}
		}
		if bad != (nonFinite > 0) {
			t.Fatalf("test premise: %d non-finite values with NaN/Inf inputs %v", nonFinite, bad)
		}
		for i := range want {
			c := interp.Compare(gotV[i].(*tensor.Tensor), want[i].(*tensor.Tensor), interp.Tolerance{Rtol: 1e-12, Atol: 1e-12})
			if !c.Match {
				t.Errorf("nan/inf %v: value %d differs: %+v\n got %v\nwant %v", bad, i, c, gotV[i], want[i])
			}
		}
	}
}
