package graphtext

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/runner"
	"gcdbg/stages"
	"gcdbg/tensor"
)

func parseText(t *testing.T, src string) (*ir.Graph, error) {
	t.Helper()
	tr, err := Parse([]byte(src), t.TempDir(), "graph.py")
	if err != nil {
		return nil, err
	}
	return tr.Graphs[0], nil
}

// Malformed input: the error names the file, line and column of the fault.
var errorCases = []struct{ src, want string }{
	{"def forward(self, x: \"f33[8]\"):\n    return (x,)\n", `graph.py:1:23: unknown dtype "f33" in annotation "f33[8]"`},
	{"def forward(self, x):\n    return (x,)\n", `graph.py:1:19: input "x" has no shape`},
	{"def forward(self, x: \"f32[8]\"):\n    y = torch.sin(z)\n    return (y,)\n", `graph.py:2:19: name "z" is not defined`},
	{"def forward(self, x: \"f32[8]\"):\n    y = torch.sin(x, 'a)\n", `graph.py:2:22: unterminated string`},
	{"def forward(self, x: \"f32[8]\"):\n    y = $x\n", `graph.py:2:9: unexpected character '$'`},
	{"def forward(self, x: \"f32[8]\"):\n    y = torch.sin(x)\n", `graph.py:1:5: def forward has no return statement`},
	{"def forward(self, x: \"f32[8]\"):\n    y = torch.sin(x\n    return (y,)\n", `graph.py:3:5: expected ")" to close the call, found "return"`},
	{"def forward(self, x: \"f32[8]\"):\n    if x:\n        return x\n", "graph.py:2:5: `if` is not part of the graph language"},
	{"def forward(self, x: \"f32[8]\"):\n    y = torch.mm(x, self.w)\n    return (y,)\n", `graph.py:2:26: self.w is not declared`},
	{"def forward(self, x: \"f32[8]\"):\n    y = self.fc1(x)\n    return (y,)\n", `graph.py:2:17: calling the module self.fc1 is not supported`},
	{"def forward(self, x: \"f32[8, 4][4]cpu\"):\n    return (x,)\n", `graph.py:1:23: annotation "f32[8, 4][4]cpu" gives 1 strides for 2 dimensions`},
	{"def forward(self, x: \"f32[8]\"):\n    y = foo(x)\n    return (y,)\n", `graph.py:2:9: unknown function "foo"`},
	{"def forward(self, x: \"f32[8]\"):\n    y = torch.sin(x);  x = None\n    z = torch.cos(x)\n    return (z,)\n", `graph.py:3:19: name "x" was set to None at line 2`},
	{"def forward(self, x: \"f32[8]\"):\n    a, b = x, x, x\n    return (a,)\n", `graph.py:2:5: cannot unpack 3 values into 2 names`},
	{"# gcdbg: s0 = four\ndef forward(self, x: \"f32[s0]\"):\n    return (x,)\n", `graph.py:1:15: symbol s0: expected an int hint, found "four"`},
	{"def forward(self, x: \"f32[8]\"):\n    return (x,)\n    y = x\n", `graph.py:3:5: statement after return`},
	{"def forward(self, x: \"f32[s0 ** 2]\"):\n    return (x,)\n", `graph.py:1:30: operator "**" is not allowed in a size`},
	{"def forward(self, x: \"f32[-3]\"):\n    return (x,)\n", `graph.py:1:27: size -3 of dimension 0 is out of range`},
	{"def helper(x):\n    return x\n", "graph.py:1:5: only `def forward` is read, found `def helper`"},
	{"def forward(self, x: \"f32[8]\", x: \"f32[8]\"):\n    return (x,)\n", `graph.py:1:32: parameter "x" is listed twice`},
	{"def forward(self, x: \"f32[8]\", s: \"f32[2]\" = 0.5):\n    return (x,)\n", `graph.py:1:46: parameter "s": a tensor input cannot have a default value`},
}

func TestErrorPositions(t *testing.T) {
	for _, c := range errorCases {
		_, err := parseText(t, c.src)
		if err == nil {
			t.Errorf("accepted:\n%s", c.src)
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("error %T is not a *graphtext.Error: %v", err, err)
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("got  %v\nwant %s...", err, c.want)
		}
	}
}

// The teaching examples compile and run end to end (every stage, then the
// runner's comparison of the pipeline with gcdbg's eager reference).
func TestExamplesRun(t *testing.T) {
	paths, _ := filepath.Glob("../examples/*.py")
	if len(paths) < 2 {
		t.Fatalf("found %d examples", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			tr, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			res, err := runner.Run(tr, runner.Options{Runs: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK || len(res.Graphs) != 1 || len(res.Graphs[0].Outputs) == 0 {
				t.Fatalf("run: %+v", res)
			}
			for _, o := range res.Graphs[0].Outputs {
				if o.VsEager == nil || !o.VsEager.Match {
					t.Errorf("output %d: %+v", o.Index, o.VsEager)
				}
			}
		})
	}
}

const features = `import torch
import torch.nn.functional as F
# gcdbg: s0=4
class GraphModule(torch.nn.Module):
    weight: "f32[16, 8]"

    def forward(self, x: "f32[s0, 8][8, 1]cpu", idx: "i64[3]", n: "Sym(s0)"):
        # File: model.py:3 in forward, code: h = F.linear(x, self.weight)
        h: "f32[s0, 16]" = F.linear(x, self.weight);  x = None
        a, b = torch.split(h, 8, dim = 1)
        c = a * 2 + -b
        d = c[0, :4]
        e = torch.ops.aten.relu.default(c @ torch.t(a))
        f = self.weight[idx]
        g = c.view(-1)
        return (d, e, f, g)
`

// The Python forms a graph uses become the nodes torch.fx records.
func TestFeatures(t *testing.T) {
	g, err := parseText(t, features)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"x": "placeholder x", "n": "placeholder n", "weight": "get_attr weight", "h": "call_function torch.nn.functional.linear",
		"split": "call_function torch.split", "a": "call_function operator.getitem", "b": "call_function operator.getitem",
		"mul": "call_function operator.mul", "neg": "call_function operator.neg", "c": "call_function operator.add",
		"d": "call_function operator.getitem", "matmul": "call_function operator.matmul", "t": "call_function torch.t",
		"e": "call_function torch.ops.aten.relu.default", "g": "call_method view", "output": "output output",
	}
	for name, w := range want {
		n := g.Node(name)
		if n == nil {
			t.Errorf("no node %q in\n%s", name, ir.FXGraph(g))
			continue
		}
		if got := n.Op + " " + n.Target; got != w {
			t.Errorf("node %s: %s, want %s", name, got, w)
		}
	}
	if got := ir.FormatArg(ir.Tuple(g.Node("d").Args), func(n *ir.Node) string { return n.Name }); got != "(c, (0, slice(None, 4, None)))" {
		t.Errorf("d's args: %s", got)
	}
	if x := g.Node("x").Meta.Tensor; x == nil || x.String() != "f32[4, 8]" {
		t.Errorf("x: %v (s0 should take its hint 4)", x)
	}
	if n := g.Node("n"); !n.Meta.HasValue || n.Meta.Value != int64(4) {
		t.Errorf("n: %+v", n.Meta)
	}
	if st := g.Node("h").Meta.Stack; len(st) != 1 || st[0] != (ir.Frame{File: "model.py", Line: 3, Func: "forward", Code: "h = F.linear(x, self.weight)"}) {
		t.Errorf("h's stack: %+v", st)
	}
	if !g.Tensors["weight"].RequiresGrad || g.Tensors["x"].RequiresGrad {
		t.Error("parameters require grad, inputs do not")
	}
	for _, v := range g.Tensors["idx"].T.Ints() {
		if v < 0 || v >= 10 {
			t.Errorf("int input value %d outside [0, 10)", v)
		}
	}
	// The graph compiles and runs; check d by hand: d[j] = 2 h[0, j] - h[0, 8 + j].
	tr, _ := Parse([]byte(features), t.TempDir(), "graph.py")
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	outs, err := interp.Run(units[0].Normalized, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, w := tr.Graphs[0].Tensors["x"].T, tr.Graphs[0].Tensors["weight"].T
	d := outs[0].(*tensor.Tensor)
	h := func(j int) float64 {
		s := 0.0
		for k := 0; k < 8; k++ {
			s += x.At(0, k) * w.At(j, k)
		}
		return s
	}
	for j := 0; j < 4; j++ {
		if want := 2*h(j) - h(8+j); abs64(d.Flat(j)-want) > 1e-4 {
			t.Errorf("d[%d] = %v, want %v", j, d.Flat(j), want)
		}
	}
	// Random inputs are the same on every load.
	tr2, _ := Parse([]byte(features), t.TempDir(), "graph.py")
	if c := interp.Compare(tr2.Graphs[0].Tensors["x"].T, x, interp.Tolerance{}); !c.Match {
		t.Error("inputs differ between loads")
	}
}

func abs64(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// Channels-last strides in an annotation give the input that layout.
func TestStridedInput(t *testing.T) {
	g, err := parseText(t, "def forward(self, x: \"f32[2, 3, 4, 5][60, 1, 15, 3]cpu\"):\n    return (torch.relu(x),)\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Tensors["x"].T.Strides; !equal(got, []int{60, 1, 15, 3}) {
		t.Errorf("strides %v", got)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writeST writes a safetensors file of float32 tensors.
func writeST(t *testing.T, path string, tensors map[string][]float32, shapes map[string][]int) {
	t.Helper()
	var hdr strings.Builder
	var data []byte
	hdr.WriteString("{")
	first := true
	for _, k := range []string{"x", "w", "extra"} {
		v, ok := tensors[k]
		if !ok {
			continue
		}
		if !first {
			hdr.WriteString(",")
		}
		first = false
		begin := len(data)
		for _, f := range v {
			b := math.Float32bits(f)
			data = append(data, byte(b), byte(b>>8), byte(b>>16), byte(b>>24))
		}
		sh := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(shapes[k])), ","), "[]")
		fmt.Fprintf(&hdr, `"%s":{"dtype":"F32","shape":[%s],"data_offsets":[%d,%d]}`, k, sh, begin, len(data))
	}
	hdr.WriteString("}")
	h := []byte(hdr.String())
	n := len(h)
	out := []byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24), 0, 0, 0, 0}
	out = append(append(out, h...), data...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A sidecar graph.safetensors supplies the tensors it names; a shape that
// disagrees with the annotation, or a tensor nothing reads, is an error.
func TestSidecar(t *testing.T) {
	dir := t.TempDir()
	src := "def forward(self, x: \"f32[2]\", y: \"f32[2]\"):\n    return (x + y,)\n"
	path := filepath.Join(dir, "graph.py")
	os.WriteFile(path, []byte(src), 0o644)
	writeST(t, filepath.Join(dir, "graph.safetensors"), map[string][]float32{"x": {1.5, -2}}, map[string][]int{"x": {2}})
	tr, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	g := tr.Graphs[0]
	if x := g.Tensors["x"]; x.Origin != "file:x" || x.T.Flat(0) != 1.5 || x.T.Flat(1) != -2 {
		t.Errorf("x from the sidecar: %+v %v", x, x.T.Floats())
	}
	if y := g.Tensors["y"]; y.Origin != "init:normal" {
		t.Errorf("y should be random: %+v", y)
	}
	writeST(t, filepath.Join(dir, "graph.safetensors"), map[string][]float32{"x": {1, 2, 3}}, map[string][]int{"x": {3}})
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), `graph.py:1:19: input "x" is f32[3] in the sidecar but f32[2] here`) {
		t.Errorf("shape mismatch: %v", err)
	}
	writeST(t, filepath.Join(dir, "graph.safetensors"), map[string][]float32{"x": {1, 2}, "extra": {1}}, map[string][]int{"x": {2}, "extra": {1}})
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), `tensor "extra" is no input or parameter`) {
		t.Errorf("unused tensor: %v", err)
	}
	// An input without annotation takes the sidecar's shape.
	os.WriteFile(path, []byte("def forward(self, x):\n    return (x * 2,)\n"), 0o644)
	writeST(t, filepath.Join(dir, "graph.safetensors"), map[string][]float32{"x": {1, 2}}, map[string][]int{"x": {2}})
	if tr, err := Load(path); err != nil || tr.Graphs[0].Node("x").Meta.Tensor.String() != "f32[2]" {
		t.Errorf("unannotated input from the sidecar: %v", err)
	}
	// A sidecar that is a link out of the folder is refused.
	out := t.TempDir()
	writeST(t, filepath.Join(out, "secret.safetensors"), map[string][]float32{"x": {1, 2}}, map[string][]int{"x": {2}})
	os.Remove(filepath.Join(dir, "graph.safetensors"))
	if err := os.Symlink(filepath.Join(out, "secret.safetensors"), filepath.Join(dir, "graph.safetensors")); err != nil {
		t.Skip(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "outside the graph's folder") {
		t.Errorf("escaping sidecar: %v", err)
	}
}

const valueInput = `def forward(self, a: "f32[4]", low: float = 0.25):
    clamp_min: "f32[4]" = torch.clamp_min(a, low)
    return (clamp_min * 3,)
`

// A parameter with a default value is a Python value input, as Dynamo
// records a float argument.
func TestValueInput(t *testing.T) {
	tr, err := Parse([]byte(valueInput), t.TempDir(), "graph.py")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "normalized")
	if err != nil {
		t.Fatal(err)
	}
	outs, err := interp.Run(units[0].Normalized, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, got := tr.Graphs[0].Tensors["a"].T, outs[0].(*tensor.Tensor)
	for i := 0; i < 4; i++ {
		if want := 3 * math.Max(a.Flat(i), 0.25); abs64(got.Flat(i)-want) > 1e-5 {
			t.Errorf("out[%d] = %v, want %v", i, got.Flat(i), want)
		}
	}
}

// The form older PyTorch printed (and blog posts copy): unquoted
// annotations with symbolic sizes, trailing spaces, blank lines.
const oldStyle = "def forward(self, arg0_1: f32[s0, s1]):  \n" +
	"    # File: inductor_demo.py:6, code: y = x.sin()  \n" +
	"    sin: f32[s0, s1] = torch.ops.aten.sin.default(arg0_1)  \n" +
	"  \n" +
	"    # File: inductor_demo.py:7, code: z = y.cos()  \n" +
	"    cos: f32[s0, s1] = torch.ops.aten.cos.default(sin)  \n" +
	"    return (sin, cos)\n"

const pythonForms = `from torch import device
# gcdbg: param layers.0.weight f32[4, 4]
# gcdbg: requires_grad x
def forward(self, x: "f32[4, 4]"):
    w = getattr(self.layers, "0").weight
    y = x @ w;  w = None
    y += 1
    y[0] = 0.0
    # No stacktrace found for following nodes
    z = y.shape
    k = torch.full([2], -inf, dtype = torch.float32, device = device(type='cpu'))
    return y, k[..., None]
`

func TestPythonForms(t *testing.T) {
	g, err := parseText(t, oldStyle)
	if err != nil {
		t.Fatal(err)
	}
	if s := g.Node("cos"); s.Meta.Tensor.String() != "f32[8, 8]" || s.Meta.Stack[0].Line != 7 {
		t.Errorf("cos: %+v", s.Meta)
	}
	tr, _ := Parse([]byte(oldStyle), t.TempDir(), "demo.py")
	if _, err := stages.Run(tr, ""); err != nil {
		t.Fatal(err)
	}
	g, err = parseText(t, pythonForms)
	if err != nil {
		t.Fatal(err)
	}
	text := ir.FXGraph(g)
	for _, want := range []string{
		"%w : f32[4, 4] [#users=1] = get_attr[target=layers.0.weight]",
		"%y : [#users=1] = call_function[target=operator.matmul](args = (%x, %w)",
		"%y_1 : [#users=3] = call_function[target=operator.iadd](args = (%y, 1)",
		"%setitem : [#users=0] = call_function[target=operator.setitem](args = (%y_1, 0, 0.0)",
		"%z : [#users=0] = call_function[target=builtins.getattr](args = (%y_1, \"shape\")",
		"%k : [#users=1] = call_function[target=torch.full](args = ((2,), -inf), kwargs = {dtype: torch.float32, device: device(type='cpu')})",
		"%getitem : [#users=1] = call_function[target=operator.getitem](args = (%k, (Ellipsis, None))",
		"return (y_1, getitem)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %s in\n%s", want, text)
		}
	}
	if !g.Tensors["x"].RequiresGrad || len(g.Node("z").Meta.Stack) != 0 {
		t.Error("requires_grad directive or # No stacktrace not applied")
	}
}
