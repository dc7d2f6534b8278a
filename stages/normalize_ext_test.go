package stages

import (
	"fmt"
	"testing"

	"gcdbg/interp"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// x.topk(2).values / .indices (named tuple fields) and torch.round(x,
// decimals=1) normalize and compute what PyTorch computes.
func TestNamedTupleFieldsAndRoundDecimals(t *testing.T) {
	x := tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{-1.55, 0.25, 2, 3, -0.5, 1.04})
	js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
	 {"name":"x","op":"placeholder","target":"x"},
	 {"name":"tk","op":"call_method","target":"topk","args":[{"node":"x"},2]},
	 {"name":"v","op":"call_function","target":"builtins.getattr","args":[{"node":"tk"},"values"]},
	 {"name":"i","op":"call_function","target":"builtins.getattr","args":[{"node":"tk"},"indices"]},
	 {"name":"r","op":"call_function","target":"torch.round","args":[{"node":"x"}],"kwargs":{"decimals":1}},
	 {"name":"output","op":"output","target":"output","args":[[{"node":"v"},{"node":"i"},{"node":"r"}]]}]}],
	 "tensors":{"x":%s}}`, tensorJSON(x))
	tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "decomposed")
	if err != nil {
		t.Fatal(err)
	}
	got, err := interp.Run(units[0].Decomposed, nil)
	if err != nil {
		t.Fatal(err)
	}
	// torch.tensor([[-1.55, 0.25, 2], [3, -0.5, 1.04]]).topk(2) and .round(decimals=1)
	want := [][]float64{{2, 0.25, 3, 1.04}, {2, 1, 0, 2}, {-1.6, 0.2, 2, 3, -0.5, 1}}
	for k, w := range want {
		g, err := interp.AsTensor(got[k])
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range w {
			if d := g.Flat(i) - v; d > 1e-6 || d < -1e-6 {
				t.Errorf("output %d element %d: %v, PyTorch %v", k, i, g.Flat(i), v)
			}
		}
	}
}

// math.sqrt(x.size(-1)) folds to a Python float (an attention block's scale).
func TestPythonMathFolds(t *testing.T) {
	x := tensor.FromFloats(tensor.Float32, []int{2, 4}, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
	 {"name":"x","op":"placeholder","target":"x"},
	 {"name":"s","op":"call_method","target":"size","args":[{"node":"x"},-1]},
	 {"name":"m","op":"call_function","target":"math.sqrt","args":[{"node":"s"}]},
	 {"name":"f","op":"call_function","target":"math.floor","args":[{"node":"m"}]},
	 {"name":"r","op":"call_function","target":"operator.mul","args":[{"node":"x"},{"node":"m"}]},
	 {"name":"r2","op":"call_function","target":"operator.add","args":[{"node":"r"},{"node":"f"}]},
	 {"name":"output","op":"output","target":"output","args":[{"node":"r2"}]}]}],
	 "tensors":{"x":%s}}`, tensorJSON(x))
	tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "decomposed")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range units[0].Decomposed.Nodes {
		if n.Target == "aten.pymath" {
			t.Errorf("math.* call not folded: %s", n.Name)
		}
	}
	got, err := interp.Run(units[0].Decomposed, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := interp.AsTensor(got[0])
	for i := 0; i < 8; i++ { // x * math.sqrt(4) + math.floor(2.0)
		if w := float64(i+1)*2 + 2; g.Flat(i) != w {
			t.Errorf("element %d: %v, want %v", i, g.Flat(i), w)
		}
	}
}
