package dynamo

import (
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
)

func load(t *testing.T, name string) *trace.Trace {
	t.Helper()
	tr, err := trace.Load("../fixtures/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func frame(t *testing.T, c *Cache, set string) Frame {
	t.Helper()
	sp, err := ParseSet(set)
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.Example().Apply(sp)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGuardFailureMessages(t *testing.T) {
	c, _, err := New(load(t, "mlp.json"), "g0")
	if err != nil {
		t.Fatal(err)
	}
	ins := c.Entries[0].Inputs
	cases := map[string]string{
		"x=8x28x28":                            "",
		"x=4x28x28":                            "tensor 'L['x']' size mismatch at index 0. expected 8, actual 4",
		"x=8x28x27":                            "tensor 'L['x']' stride mismatch at index 0. expected 784, actual 756", // dim 0's stride is checked before dim 2's size
		"x=8x784":                              "tensor 'L['x']' rank mismatch. expected 3, actual 2",
		"x=8x28x28:float64":                    "tensor 'L['x']' dtype mismatch. expected Float, actual Double",
		"x=8x28x28:requires_grad":              "tensor 'L['x']' requires_grad mismatch. expected requires_grad=0",
		"linear_relu_stack.0.bias=512:no_grad": "tensor 'L['self'].linear_relu_stack[0].bias' requires_grad mismatch. expected requires_grad=1",
	}
	for set, want := range cases {
		if got := Check(ins, frame(t, c, set)); got != want {
			t.Errorf("%s: got %q, want %q", set, got, want)
		}
	}
	// A transposed view: same sizes, other strides.
	f := frame(t, c, "x=8x28x28")
	x := f["x"].T.T
	v := x.View(x.Shape, []int{784, 1, 28}, 0)
	f["x"] = Value{T: &ir.TensorData{T: v}}
	if got, want := Check(ins, f), "tensor 'L['x']' stride mismatch at index 1. expected 28, actual 1"; got != want {
		t.Errorf("stride: got %q, want %q", got, want)
	}
	// Two inputs sharing storage break NO_TENSOR_ALIASING.
	f = frame(t, c, "x=8x28x28")
	f["linear_relu_stack.0.bias"] = Value{T: &ir.TensorData{T: f["linear_relu_stack.0.weight"].T.T.View([]int{512}, []int{1}, 0), RequiresGrad: true}}
	if got := Check(ins, f); !strings.HasPrefix(got, "Duplicate tensor found where not expected! L['self'].linear_relu_stack[0].bias should not alias") {
		t.Errorf("aliasing: %q", got)
	}
}

func TestConstantGuard(t *testing.T) {
	c, _, err := New(load(t, "clamp_min.json"), "g0")
	if err != nil {
		t.Fatal(err)
	}
	ins := c.Entries[0].Inputs
	for set, want := range map[string]string{"b=0": "", "b=1": "L['b'] == 0", "b=0.0": "L['b'] == 0", "b=None": "L['b'] == 0"} {
		if got := Check(ins, frame(t, c, set)); got != want {
			t.Errorf("%s: got %q, want %q", set, got, want)
		}
	}
	call, err := c.Call(frame(t, c, "b=1"))
	if err != nil {
		t.Fatal(err)
	}
	if call.Hit || c.Compiles != 2 {
		t.Errorf("b=1 should recompile: hit %v compiles %d", call.Hit, c.Compiles)
	}
}

// staticOutputs compiles g0 statically for f and runs it: the reference a
// symbolic compile must agree with.
func staticOutputs(t *testing.T, tr *trace.Trace, f Frame) []ir.Value {
	t.Helper()
	tw, err := TraceWith(tr, "g0", f)
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tw, "normalized")
	if err != nil {
		t.Fatal(err)
	}
	out, err := interp.Run(units[0].Normalized, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRecompileSequence(t *testing.T) {
	tr := load(t, "mlp.json")
	c, first, err := New(tr, "g0")
	if err != nil {
		t.Fatal(err)
	}
	if first.Hit || c.Compiles != 1 {
		t.Fatalf("first call: hit %v compiles %d", first.Hit, c.Compiles)
	}
	steps := []struct {
		set      string
		hit      bool
		entry    string
		failure  string // first (newest entry's) failure
		action   string
		compiles int
	}{
		{"x=8x28x28", true, "g0/0", "", "", 1},
		{"x=4x28x28", false, "g0/1", "g0/0: tensor 'L['x']' size mismatch at index 0. expected 8, actual 4", "x dim 0 changed size 8 -> 4 (change 1): compiling static", 2},
		{"x=2x28x28", false, "g0/2", "g0/1: tensor 'L['x']' size mismatch at index 0. expected 4, actual 2", "marking x dim 0 dynamic (s0)", 3},
		{"x=16x28x28", true, "g0/2", "", "", 3},
		{"x=5x28x28", true, "g0/2", "", "", 3},
	}
	for _, s := range steps {
		f := frame(t, c, s.set)
		call, err := c.Call(f)
		if err != nil {
			t.Fatalf("%s: %v", s.set, err)
		}
		if call.Hit != s.hit || call.Entry.ID != s.entry || c.Compiles != s.compiles {
			t.Errorf("%s: hit %v entry %s compiles %d; want %v %s %d", s.set, call.Hit, call.Entry.ID, c.Compiles, s.hit, s.entry, s.compiles)
		}
		if s.failure != "" && (len(call.Failures) == 0 || call.Failures[0] != s.failure) {
			t.Errorf("%s: failures %q, want first %q", s.set, call.Failures, s.failure)
		}
		if s.action != "" && !strings.Contains(strings.Join(call.Actions, "\n"), s.action) {
			t.Errorf("%s: actions %q, want %q", s.set, call.Actions, s.action)
		}
		// Whatever entry ran, its outputs are those of a static compile at these sizes.
		want := staticOutputs(t, tr, f)
		for i := range want {
			got, _ := interp.AsTensor(call.Outputs[i])
			exp, _ := interp.AsTensor(want[i])
			if cmp := interp.Compare(got, exp, interp.DefaultTolerance(exp.DType)); !cmp.Match || got.Shape[0] != f["x"].T.T.Shape[0] {
				t.Errorf("%s: output %d vs static compile: %+v (shape %v)", s.set, i, cmp, got.Shape)
			}
		}
		if s.entry == "g0/2" && (len(call.VsStatic) != 1 || !call.VsStatic[0].Match) {
			t.Errorf("%s: VsStatic %+v", s.set, call.VsStatic)
		}
	}
	dyn := c.Entries[2].Unit()
	if got := ir.Readable(dyn.Normalized); !strings.Contains(got, `x: "f32[s0, 28, 28]"`) || !strings.Contains(got, `flatten: "f32[s0, 784]"`) ||
		!strings.Contains(got, `linear_relu_stack_4: "f32[s0, 10]"`) || !strings.Contains(got, `"f32[512, 784]"`) {
		t.Errorf("symbolic shapes not in the normalized graph:\n%s", got)
	}
	if c.Entries[0].Hits != 1 || c.Entries[2].Hits != 2 {
		t.Errorf("hits: %d, %d", c.Entries[0].Hits, c.Entries[2].Hits)
	}
	// Size 1 is specialised: the shape-env guard fails and a static entry is made.
	call, err := c.Call(frame(t, c, "x=1x28x28"))
	if err != nil {
		t.Fatal(err)
	}
	if call.Hit || call.Failures[0] != "g0/2: 2 <= L['x'].size()[0]" || !strings.Contains(c.Entries[3].Shapes, "f32[1, 28, 28]") {
		t.Errorf("size 1: %+v, entry %s", call.Failures, c.Entries[3].Shapes)
	}
	if e := c.Entries[2]; e.ID != "g0/2" || e.Shapes != "x=f32[s0, 28, 28]" || c.dynamic["x:0"] != "s0" {
		t.Errorf("entry %s %s, dynamic %v", e.ID, e.Shapes, c.dynamic)
	}
}

// x[s] -> outer product [s, s] -> flatten [s*s]: not affine, so refused.
func TestSymbolicRefusesNonAffine(t *testing.T) {
	x := &ir.Node{Name: "x", Op: ir.Placeholder, Target: "x"}
	a := &ir.Node{Name: "a", Op: ir.CallFunction, Target: "aten.unsqueeze", Args: []ir.Arg{x, int64(1)}}
	b := &ir.Node{Name: "b", Op: ir.CallFunction, Target: "aten.unsqueeze", Args: []ir.Arg{x, int64(0)}}
	m := &ir.Node{Name: "m", Op: ir.CallFunction, Target: "aten.mul", Args: []ir.Arg{a, b}}
	fl := &ir.Node{Name: "fl", Op: ir.CallFunction, Target: "aten.flatten", Args: []ir.Arg{m}}
	out := &ir.Node{Name: "output", Op: ir.Output, Target: "output", Args: []ir.Arg{fl}}
	g := &ir.Graph{Name: "g", Nodes: []*ir.Node{x, a, b, m, fl, out},
		Tensors: map[string]*ir.TensorData{"x": {T: tensor.New(tensor.Float32, 3)}}}
	x.Meta.Tensor = &ir.TensorMeta{DType: tensor.Float32, Shape: ir.ShapeOf([]int{3})}
	metas, err := inferAt(g, nil, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for n, ms := range metas {
		n.Meta.Tensor = ms[0]
	}
	err = MakeSymbolic(g, []SymDim{{Input: "x", Dim: 0, Sym: "s0", Hint: 3}})
	if err == nil || !strings.Contains(err.Error(), `node "fl": cannot express dim 0 symbolically: sizes 9, 16, 25`) {
		t.Fatalf("err %v", err)
	}
	if fl.Meta.Tensor.Shape.String() != "[9]" || a.Meta.Tensor.Shape.String() != "[3, 1]" {
		t.Errorf("a refused pass wrote shapes: %s %s", a.Meta.Tensor.Shape, fl.Meta.Tensor.Shape)
	}
	// Without the flatten every dim is affine.
	out.Args = []ir.Arg{m}
	g.Nodes = []*ir.Node{x, a, b, m, out}
	if err := MakeSymbolic(g, []SymDim{{Input: "x", Dim: 0, Sym: "s0", Hint: 3}}); err != nil {
		t.Fatal(err)
	}
	if got := m.Meta.Tensor.Shape.String(); got != "[s0, s0]" {
		t.Errorf("outer product shape %s", got)
	}
}

func TestAffineText(t *testing.T) {
	for _, c := range []struct {
		a, b int
		want string
	}{{1, 0, "s0"}, {2, 0, "2*s0"}, {784, 0, "784*s0"}, {1, 1, "s0 + 1"}, {3, -2, "3*s0 - 2"}, {-1, 4, "-s0 + 4"}} {
		if got := affine(c.a, c.b, "s0"); got != c.want {
			t.Errorf("affine(%d, %d) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

func TestBadInputs(t *testing.T) {
	c, _, err := New(load(t, "mlp.json"), "g0")
	if err != nil {
		t.Fatal(err)
	}
	for set, want := range map[string]string{
		"z=4":                                 `the graph has no input called "z"`,
		"x=4xa":                               `"a" is not a size`,
		"x=4:float99":                         `suffix "float99"`,
		"x=@nofile.st:k":                      "nofile.st",
		"x":                                   "want NAME=AxBxC",
		"x=@../fixtures/mlp.safetensors:nope": `has no tensor "nope"`,
	} {
		sp, err := ParseSet(set)
		if err == nil {
			_, err = c.Example().Apply(sp)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", set, err, want)
		}
	}
}

func TestRandomInputsDeterministic(t *testing.T) {
	c, _, err := New(load(t, "mlp.json"), "g0")
	if err != nil {
		t.Fatal(err)
	}
	a, b := frame(t, c, "x=4x28x28")["x"].T.T, frame(t, c, "x=4x28x28")["x"].T.T
	if cmp := interp.Compare(a, b, interp.Tolerance{}); !cmp.Match {
		t.Error("same spec, different data")
	}
	if a.Flat(0) == a.Flat(1) {
		t.Error("random data looks constant")
	}
}

// Two inputs of equal size share one symbol (duck sizing), guarded by an
// equality; otherwise x * y could not broadcast at any other size.
func TestDuckSizing(t *testing.T) {
	c, _, err := New(load(t, "mul_relu_div_sum.json"), "g0")
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"x=4x32,y=4x32", "x=5x32,y=5x32", "x=7x32,y=7x32"} {
		if _, err := c.Call(frame(t, c, set)); err != nil {
			t.Fatalf("%s: %v", set, err)
		}
	}
	e := c.Entries[2]
	if e.Shapes != "x=f32[s0, 32], y=f32[s0, 32]" || e.Hits != 1 {
		t.Fatalf("entry %s: %s, %d hits", e.ID, e.Shapes, e.Hits)
	}
	if got, want := Check(e.Inputs, frame(t, c, "x=7x32,y=6x32")), "L['x'].size()[0] == L['y'].size()[0]"; got != want {
		t.Errorf("unequal sizes: %q, want %q", got, want)
	}
}
