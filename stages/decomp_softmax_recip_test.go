package stages_test

import (
	"math"
	"testing"

	"gcdbg/graphtext"
	"gcdbg/interp"
	"gcdbg/stages"
	"gcdbg/tensor"
)

// softmax's decomposition scales each row by the reciprocal of its sum, as
// PyTorch's CPU kernel does (SoftMaxKernel.cpp, _vec_softmax_lastdim:
// `tmp_sum = 1 / tmp_sum`, then a multiply): one reciprocal per row, a
// multiply per element, no division over the row. Over another dim its
// kernel divides (_vec_softmax), and so does the decomposition.
// log_softmax keeps its log(sum). compiler's TestRowReciprocalMatchesPyTorch checks the compiled
// values against PyTorch's.
func TestSoftmaxScalesByRowReciprocal(t *testing.T) {
	src := `def forward(self, x: "f32[3, 5]"):
    a = torch.nn.functional.softmax(x, -1)
    b = torch.nn.functional.log_softmax(x, -1)
    c = torch.nn.functional.softmax(x, 0)
    return (a, b, c)
`
	tr, err := graphtext.Parse([]byte(src), "", "sm.py")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "decomposed")
	if err != nil {
		t.Fatal(err)
	}
	if u := units[0]; u.Failure != nil {
		t.Fatalf("stopped: %v", u.Failure)
	}
	count := map[string]int{}
	for _, n := range units[0].Decomposed.Nodes {
		count[n.Target]++
	}
	if count["aten.reciprocal"] != 1 || count["aten.div"] != 1 || count["aten.log"] != 1 {
		t.Errorf("decomposed ops %v: want one reciprocal (the last dim's softmax), one div (dim 0's), one log (log_softmax's)", count)
	}
	if n := units[0].Decomposed.Node("a"); n == nil || n.Target != "aten.mul" {
		t.Errorf("softmax's result is %+v, want the multiply by the row reciprocal", n)
	}
}

// SiLU is PyTorch's kernel's x / (1 + exp(-x)) in a graph nothing
// differentiates, and x * sigmoid(x) where a backward follows: through
// x / (1 + exp(-x)) the joint graph's gradient at x = -100 would be
// 0 * exp(100) = NaN; through sigmoid it is PyTorch's -0 (silu_backward:
// sigmoid * (1 + x * (1 - sigmoid)) = 0 * -99). Both graphs' forward and
// the gradient are checked in the eager interpreter (which computes a
// sigmoid in double, so its silu(-100) is -3.8e-42, not -0).
func TestSiluDecompositionByGrad(t *testing.T) {
	const body = `def forward(self, x: "f32[6]"):
    y = torch.nn.functional.silu(x)
    return (y,)
`
	for _, grad := range []bool{false, true} {
		src := body
		if grad {
			src = "# gcdbg: requires_grad x\n" + body
		}
		tr, err := graphtext.Parse([]byte(src), "", "silu.py")
		if err != nil {
			t.Fatal(err)
		}
		tr.Graphs[0].Tensors["x"].T = tensor.FromFloats(tensor.Float32, []int{6}, []float64{-100, -1, math.Copysign(0, -1), 2, math.Inf(1), math.Inf(-1)})
		units, err := stages.Run(tr, "")
		if err != nil {
			t.Fatal(err)
		}
		u := units[0]
		if u.Failure != nil {
			t.Fatalf("stopped: %v", u.Failure)
		}
		ops := map[string]int{}
		for _, n := range u.Decomposed.Nodes {
			ops[n.Target]++
		}
		if grad != (ops["aten.sigmoid"] == 1) || grad == (ops["aten.div"] == 1) {
			t.Errorf("requires_grad %v: decomposed ops %v; want sigmoid with a backward, x / (1 + exp(-x)) without", grad, ops)
		}
		outs, err := interp.Run(u.Decomposed, nil)
		if err != nil {
			t.Fatal(err)
		}
		y := outs[0].(*tensor.Tensor)
		want := []float64{math.Copysign(0, -1), -1 / (1 + math.E), math.Copysign(0, -1), 2 / (1 + math.Exp(-2)), math.Inf(1), math.NaN()}
		for i, w := range want {
			g := y.Flat(i)
			// silu(-100) is -0 in float32 steps (exp(100) = Inf) and
			// -3.8e-42 through the interpreter's sigmoid: both <= 1e-40.
			if math.IsNaN(w) != math.IsNaN(g) || (!math.IsNaN(w) && (math.Abs(g-w) > 1e-6*math.Abs(w)+1e-40 || math.Signbit(g) != math.Signbit(w))) {
				t.Errorf("requires_grad %v: silu(x)[%d] = %v, want %v", grad, i, g, w)
			}
		}
		if !grad {
			continue
		}
		jouts, err := interp.Run(u.Joint.Graph, nil)
		if err != nil {
			t.Fatal(err)
		}
		dx := jouts[len(jouts)-1].(*tensor.Tensor)
		if g := dx.Flat(0); math.IsNaN(g) || math.Abs(g) > 1e-40 {
			t.Errorf("d silu / dx at -100 = %v, want 0 (PyTorch's -0)", g)
		}
	}
}
