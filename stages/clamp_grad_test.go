package stages

import (
	"testing"

	"gcdbg/interp"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// PyTorch's clamp_min passes the whole gradient where the input equals the
// bound (derivatives.yaml: where(self >= min, grad, 0)); the decomposition
// must keep that, not split ties in half as maximum's derivative does.
func TestClampMinGradientAtTheBound(t *testing.T) {
	a := tensor.FromFloats(tensor.Float32, []int{3}, []float64{0, 1, -1})
	js := `{"format":"gcdbg.trace","version":1,"graphs":[{"name":"g0","nodes":[
	 {"name":"a","op":"placeholder","target":"a","meta":{"dtype":"float32","shape":[3],"requires_grad":true}},
	 {"name":"c","op":"call_function","target":"torch.clamp_min","args":[{"node":"a"},0]},
	 {"name":"m","op":"call_function","target":"operator.mul","args":[{"node":"c"},3]},
	 {"name":"output","op":"output","target":"output","args":[{"node":"m"}]}]}],
	 "tensors":{"a":` + tensorJSON(a) + `}}`
	tr, err := trace.Parse([]byte(js), t.TempDir(), "tie.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	_, grads, err := units[0].RunPipeline()
	if err != nil {
		t.Fatal(err)
	}
	want := tensor.FromFloats(tensor.Float32, []int{3}, []float64{3, 3, 0})
	if c := interp.Compare(grads[0].(*tensor.Tensor), want, interp.Tolerance{}); !c.Match {
		t.Fatalf("grad %v, want [3 3 0] as PyTorch gives", grads[0])
	}
}
