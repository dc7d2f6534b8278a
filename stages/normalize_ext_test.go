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
