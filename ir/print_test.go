package ir

import (
	"strings"
	"testing"

	"gcdbg/tensor"
)

func sampleGraph() *Graph {
	x := &Node{Name: "x", Op: Placeholder, Target: "x", Meta: Meta{Tensor: &TensorMeta{DType: tensor.Float32, Shape: ShapeOf([]int{8, 1024})}}}
	sin := &Node{Name: "sin", Op: CallMethod, Target: "sin", Args: []Arg{x}, Meta: Meta{Tensor: &TensorMeta{DType: tensor.Float32, Shape: ShapeOf([]int{8, 1024})},
		Stack: []Frame{{File: "demo.py", Line: 6, Func: "f", Code: "y = x.sin()"}}}}
	div := &Node{Name: "truediv", Op: CallFunction, Target: "operator.truediv", Args: []Arg{sin, 2.0}}
	sum := &Node{Name: "sum_1", Op: CallFunction, Target: "torch.sum", Args: []Arg{div}, Kwargs: []Kwarg{{"dim", Tuple{int64(-1)}}}}
	out := &Node{Name: "output", Op: Output, Target: "output", Args: []Arg{Tuple{sin, sum}}}
	return &Graph{Name: "g0", Nodes: []*Node{x, sin, div, sum, out}}
}

func TestFXGraphForm(t *testing.T) {
	got := FXGraph(sampleGraph())
	want := `graph():
    %x : f32[8, 1024] [#users=1] = placeholder[target=x]
    %sin : f32[8, 1024] [#users=2] = call_method[target=sin](args = (%x,), kwargs = {})
    %truediv : [#users=1] = call_function[target=operator.truediv](args = (%sin, 2.0), kwargs = {})
    %sum_1 : [#users=1] = call_function[target=torch.sum](args = (%truediv,), kwargs = {dim: (-1,)})
    return (sin, sum_1)
`
	if got != want {
		t.Fatalf("FXGraph:\n%s\nwant:\n%s", got, want)
	}
}

func TestReadableForm(t *testing.T) {
	got := Readable(sampleGraph())
	for _, line := range []string{
		`def forward(self, x: "f32[8, 1024]"):`,
		`    # File: demo.py:6, code: y = x.sin()`,
		`    sin: "f32[8, 1024]" = x.sin()`,
		`    truediv = operator.truediv(sin, 2.0)`,
		`    sum_1 = torch.sum(truediv, dim = (-1,))`,
		`    return (sin, sum_1)`,
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("Readable output lacks %q:\n%s", line, got)
		}
	}
}

func TestPyFloat(t *testing.T) {
	for f, want := range map[float64]string{2: "2.0", 1e-5: "1e-05", 0.5: "0.5", 100000: "100000.0", -3.25: "-3.25"} {
		if got := PyFloat(f); got != want {
			t.Errorf("PyFloat(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestValidateRejectsUseBeforeDefinition(t *testing.T) {
	g := sampleGraph()
	g.Nodes[1], g.Nodes[2] = g.Nodes[2], g.Nodes[1]
	err := g.Validate()
	if err == nil || !strings.Contains(err.Error(), `node "truediv"`) {
		t.Fatalf("Validate = %v, want an error naming truediv", err)
	}
}
