package stages

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

var fzTol = interp.Tolerance{Rtol: 1e-4, Atol: 1e-5}

func fzUnits(t *testing.T, path string) []*Unit {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "functional")
	if err != nil {
		t.Fatal(err)
	}
	return units
}

// checkFunctional checks a functional graph against its normalized graph
// run eagerly: no in-place op left, every node with provenance, the same
// outputs, and write-backs for exactly the inputs the eager run mutated,
// holding the values the eager run left in them. It returns the
// functional graph's outputs.
func checkFunctional(t *testing.T, label string, u *Unit) []ir.Value {
	t.Helper()
	norm, fn := u.Normalized, u.Functional
	for _, n := range fn.Nodes {
		if n.Op == ir.CallFunction {
			if d := ir.Lookup(n.Target); d == nil || d.Inplace {
				t.Errorf("%s: node %s: %s is in-place or unknown", label, n.Name, n.Target)
			}
		}
		if len(n.From) == 0 || norm.Node(n.From[0]) == nil {
			t.Errorf("%s: node %s: provenance %v names no normalized node", label, n.Name, n.From)
		}
	}
	info := u.FunctionalInfo()
	got, err := interp.Run(fn, nil)
	if err != nil {
		t.Fatalf("%s: functional graph: %v", label, err)
	}
	want, err := interp.Run(norm, nil)
	if err != nil {
		t.Fatalf("%s: normalized graph: %v", label, err)
	}
	if info.NumOutputs != len(want) || len(got) != len(want)+len(info.Writebacks) {
		t.Fatalf("%s: %d outputs (%d user, %d write-backs), normalized has %d", label, len(got), info.NumOutputs, len(info.Writebacks), len(want))
	}
	for i := range want {
		fzCompareValue(t, fmt.Sprintf("%s: output %d", label, i), got[i], want[i])
	}
	// The inputs' values after the in-place run: interp clones each input
	// into the env, so the env holds exactly what the graph mutated.
	env, err := interp.Eval(norm, nil)
	if err != nil {
		t.Fatal(err)
	}
	wb := map[string]Writeback{}
	for _, w := range info.Writebacks {
		wb[w.Input] = w
	}
	for _, n := range norm.Nodes {
		if n.Op != ir.Placeholder && n.Op != ir.GetAttr {
			continue
		}
		after, ok := env[n].(*tensor.Tensor)
		if !ok {
			continue
		}
		changed := !interp.Compare(after, norm.Tensors[n.Target].T, interp.Tolerance{}).Match
		w, has := wb[n.Name]
		switch {
		case changed && !has:
			t.Errorf("%s: input %s was mutated but is not written back", label, n.Name)
		case has:
			if w.Target != n.Target {
				t.Errorf("%s: write-back of %s has target %q, want %q", label, n.Name, w.Target, n.Target)
			}
			fzCompareValue(t, fmt.Sprintf("%s: write-back of %s", label, n.Name), got[w.Output], after)
			delete(wb, n.Name)
		}
	}
	for name := range wb {
		t.Errorf("%s: write-back %s names no graph input", label, name)
	}
	return got
}

func fzCompareValue(t *testing.T, label string, got, want ir.Value) {
	t.Helper()
	g, err1 := interp.AsTensor(got)
	w, err2 := interp.AsTensor(want)
	if err1 != nil || err2 != nil {
		t.Errorf("%s: %v %v", label, err1, err2)
		return
	}
	if c := interp.Compare(g, w, fzTol); !c.Match {
		t.Errorf("%s: %s (max abs err %g)\ngot  %v\nwant %v", label, c.Why, c.MaxAbsErr, g, w)
	}
}

// The mutation model (stages/testdata/models/mutation.py): every kind of
// in-place op and write through a view, functionalized, gives PyTorch's
// outputs, and the mutated input x and buffers count and stat come back
// as write-backs with the values eager execution leaves in them.
func TestFunctionalizeMutationModel(t *testing.T) {
	u := fzUnits(t, "testdata/mutation.json")[0]
	got := checkFunctional(t, "mutation", u)
	exp := u.Captured.Expected
	for i, w := range exp.Outputs {
		g, err := interp.AsTensor(got[i])
		if err != nil {
			t.Fatal(err)
		}
		if c := interp.Compare(g, w, fzTol); !c.Match {
			t.Errorf("output %d vs PyTorch: %s max abs err %g", i, c.Why, c.MaxAbsErr)
		}
	}
	info := u.FunctionalInfo()
	var targets []string
	for _, w := range info.Writebacks {
		targets = append(targets, w.Target)
	}
	if strings.Join(targets, ",") != "count,x,stat" {
		t.Errorf("write-backs %v, want count, x, stat (in order of first mutation)", targets)
	}
	// PyTorch's functional forms: setitem with ints and slices and writes
	// through select views become select_scatter/slice_scatter.
	ops := map[string]int{}
	for _, n := range u.Functional.Nodes {
		ops[n.Target]++
	}
	for _, op := range []string{"aten.select_scatter", "aten.slice_scatter", "aten.masked_fill", "aten.relu"} {
		if ops[op] == 0 {
			t.Errorf("functional graph has no %s", op)
		}
	}
	// v = h[1] is read after h changed: it is regenerated, from the node
	// that holds h's last version.
	out := u.Functional.Outputs()
	v := out[1].(*ir.Node)
	if v.Target != "aten.getitem" || v.From[0] != "getitem" || v.Args[0] != out[0].(*ir.Node).Args[0].(*ir.Node).Args[0] {
		t.Errorf("returned view v = %s(%v), want getitem of h's final version", v.Target, v.Args)
	}
	p := printFunctional(u)
	if !strings.Contains(p, "self.count.copy_(outputs[6])") || !strings.Contains(p, "x.copy_(outputs[7])") {
		t.Errorf("printer does not list the write-backs:\n%s", p)
	}
}

// Without mutation, functionalization changes nothing: every fixture and
// zoo graph comes out node for node the same.
func TestFunctionalizeIsIdentityWithoutMutation(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	zoo, _ := filepath.Glob("testdata/zoo_*.json")
	if len(paths) == 0 || len(zoo) == 0 {
		t.Fatal("no fixtures found")
	}
	name := func(n *ir.Node) string { return n.Name }
	for _, p := range append(paths, zoo...) {
		for _, u := range fzUnits(t, p) {
			if mutates(u.Normalized) {
				continue // BatchNorm in training: its buffers are written back (training_test.go)
			}
			a, b := u.Normalized.Nodes, u.Functional.Nodes
			if len(a) != len(b) {
				t.Errorf("%s: %d nodes became %d", p, len(a), len(b))
				continue
			}
			for i := range a {
				if a[i].Name != b[i].Name || a[i].Op != b[i].Op || a[i].Target != b[i].Target ||
					fmt.Sprint(fzFormatArgs(a[i].Args, name)) != fmt.Sprint(fzFormatArgs(b[i].Args, name)) {
					t.Errorf("%s: node %s (%s) became %s (%s)", p, a[i].Name, a[i].Target, b[i].Name, b[i].Target)
				}
			}
			if len(u.FunctionalInfo().Writebacks) != 0 {
				t.Errorf("%s: write-backs in a graph without mutation", p)
			}
		}
	}
}

func fzFormatArgs(args []ir.Arg, name func(*ir.Node) string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = ir.FormatArg(a, name)
	}
	return out
}

// fzBuilder makes small canonical graphs with inferred meta, for the
// aliasing cases the exported model does not reach.
type fzBuilder struct {
	t *testing.T
	g *ir.Graph
}

func newFzGraph(t *testing.T) *fzBuilder {
	return &fzBuilder{t: t, g: &ir.Graph{Name: "g", Tensors: map[string]*ir.TensorData{}}}
}

func (b *fzBuilder) input(name string, x *tensor.Tensor) *ir.Node {
	n := &ir.Node{Name: name, Op: ir.Placeholder, Target: name,
		Meta: ir.Meta{Tensor: &ir.TensorMeta{DType: x.DType, Shape: ir.ShapeOf(x.Shape)}}}
	b.g.Tensors[name] = &ir.TensorData{T: x}
	b.g.Nodes = append(b.g.Nodes, n)
	return n
}

func (b *fzBuilder) call(name, target string, args ...ir.Arg) *ir.Node {
	b.t.Helper()
	d := ir.Lookup(target)
	bound, err := d.Schema.Bind(args, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	vals := make([]ir.Value, len(bound))
	for i, a := range bound {
		vals[i] = ir.MapArg(a, fzMetaOf)
	}
	v, err := ir.InferMeta(d, vals)
	if err != nil {
		b.t.Fatalf("%s: %v", name, err)
	}
	n := &ir.Node{Name: name, Op: ir.CallFunction, Target: target, Args: args}
	fzSetMeta(n, v)
	b.g.Nodes = append(b.g.Nodes, n)
	return n
}

func (b *fzBuilder) done(outs ...ir.Arg) *Unit {
	b.g.Nodes = append(b.g.Nodes, &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{ir.Tuple(outs)}})
	u := &Unit{Normalized: b.g}
	if err := functionalize(u); err != nil {
		b.t.Fatal(err)
	}
	return u
}

func fzRamp(shape ...int) *tensor.Tensor {
	n := tensor.Numel(shape)
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(i) - float64(n)/3
	}
	return tensor.FromFloats(tensor.Float32, shape, vals)
}

// Aliasing decided by the ops' real semantics: reshape of a transpose
// copies (mutating it leaves x alone) while reshape of x is a view; a
// same-dtype to_dtype is x itself; split items, narrow, permute and
// unsqueeze chains scatter back; advanced and None/Ellipsis setitem become
// index_put; copy_ and fill_ cast and broadcast.
func TestFunctionalizeAliasing(t *testing.T) {
	cases := map[string]func(b *fzBuilder) *Unit{
		"reshape copy vs view": func(b *fzBuilder) *Unit {
			x := b.input("x", fzRamp(3, 4))
			r := b.call("r", "aten.reshape", b.call("tt", "aten.t", x), ir.Tuple{int64(-1)})
			b.call("a", "aten.add_", r, 1.0)
			r2 := b.call("r2", "aten.reshape", x, ir.Tuple{int64(12)})
			b.call("m", "aten.mul_", r2, 2.0)
			return b.done(r, r2, b.call("y", "aten.add", x, 0.5))
		},
		"split item": func(b *fzBuilder) *Unit {
			x := b.input("x", fzRamp(4, 6))
			s := b.call("s", "aten.split", x, int64(2), int64(1))
			a := b.call("a", "aten.getitem", s, int64(1))
			b.call("m", "aten.mul_", a, 3.0)
			c := b.call("c", "aten.chunk", x, int64(2), int64(0))
			b.call("n", "aten.neg_", b.call("c1", "aten.getitem", c, int64(-1)))
			return b.done(b.call("s2", "aten.getitem", s, int64(2)), a, b.call("y", "aten.mul", x, 1.0))
		},
		"permute narrow unsqueeze": func(b *fzBuilder) *Unit {
			x := b.input("x", fzRamp(2, 3, 4))
			p := b.call("p", "aten.permute", x, ir.Tuple{int64(2), int64(0), int64(1)})
			n := b.call("nw", "aten.narrow", p, int64(0), int64(-3), int64(2))
			u := b.call("u", "aten.unsqueeze", n, int64(0))
			b.call("r", "aten.relu_", u)
			sq := b.call("sq", "aten.squeeze", b.call("v", "aten.view", x, ir.Tuple{int64(1), int64(24)}), nil)
			b.call("s", "aten.sub_", b.call("sl", "aten.slice", sq, int64(0), int64(5), nil, int64(3)), 10.0)
			return b.done(p, n)
		},
		"view of base read after base mutation": func(b *fzBuilder) *Unit {
			x := b.input("x", fzRamp(4, 4))
			h := b.call("h", "aten.exp", x)
			v := b.call("v", "aten.select", h, int64(0), int64(1))
			w := b.call("w", "aten.slice", h, int64(1), int64(1), int64(3))
			b.call("a", "aten.add_", h, 1.0)
			b.call("m", "aten.mul_", w, -1.0)
			al := b.call("al", "aten.to_dtype", h, tensor.Float32)
			b.call("d", "aten.div_", al, 2.0)
			return b.done(v, w, h)
		},
		"setitem and copies": func(b *fzBuilder) *Unit {
			x := b.input("x", fzRamp(4, 3))
			y := b.input("y", tensor.FromInts(tensor.Int64, []int{3}, []int64{7, -2, 5}))
			z := b.input("z", tensor.FromInts(tensor.Int64, []int{4, 3}, make([]int64, 12)))
			b.call("s1", "aten.setitem", x, ir.List{int64(0), int64(2)}, 5.0)
			b.call("s2", "aten.setitem", x, ir.Tuple{ir.Ellipsis{}, int64(1)}, -4.0)
			b.call("s3", "aten.setitem", x, ir.Tuple{nil, int64(3)}, y)
			b.call("c", "aten.copy_", b.call("row", "aten.select", x, int64(0), int64(1)), y)
			b.call("f", "aten.fill_", b.call("col", "aten.select", z, int64(1), int64(2)), 2.5)
			b.call("s4", "aten.setitem", z, ir.Tuple{ir.Slice{Start: int64(1), Stop: nil, Step: int64(2)}, int64(0)}, int64(9))
			return b.done(b.call("o", "aten.mul", x, 2.0))
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			u := build(newFzGraph(t))
			checkFunctional(t, name, u)
		})
	}
}

// Writes functionalization cannot express are errors naming the graph and
// node, never a panic or a silently wrong graph.
func TestFunctionalizeRefusesWithContext(t *testing.T) {
	b := newFzGraph(t)
	x := b.input("x", fzRamp(3))
	e := b.call("e", "aten.expand", x, ir.Tuple{int64(2), int64(3)})
	b.call("a", "aten.add_", e, 1.0)
	b.g.Nodes = append(b.g.Nodes, &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{e}})
	err := functionalize(&Unit{Normalized: b.g})
	if err == nil || !strings.Contains(err.Error(), `graph "g": node "a"`) || !strings.Contains(err.Error(), "aten.expand") {
		t.Fatalf("got %v, want an error naming graph g, node a and aten.expand", err)
	}
	b = newFzGraph(t)
	b.input("x", fzRamp(3))
	b.g.Nodes = append(b.g.Nodes, &ir.Node{Name: "a", Op: ir.CallFunction, Target: "aten.add_", Args: []ir.Arg{1.0, 2.0}})
	if err := functionalize(&Unit{Normalized: b.g}); err == nil || !strings.Contains(err.Error(), `node "a": args[0]`) {
		t.Fatalf("got %v, want an args[0] error", err)
	}
}

// mutates reports whether a graph has an in-place op.
func mutates(g *ir.Graph) bool {
	for _, n := range g.Nodes {
		if d := ir.Lookup(n.Target); n.Op == ir.CallFunction && d != nil && d.Inplace {
			return true
		}
	}
	return false
}
