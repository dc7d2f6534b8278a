package stages

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// math.* on sizes folds during normalization to exactly the value CPython
// computed (testdata/models/pymath.py returns them as outputs: PyTorch's
// expected float64/int64/bool 0-d tensors), bit for bit, even where Go's
// math package differs from glibc in the last place (log(3), exp(22),
// cos(5), ...); the tensor output matches PyTorch too.
func TestPythonMathFoldsExactlyAsPython(t *testing.T) {
	tr, err := trace.Load("testdata/pymath/pymath.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "decomposed")
	if err != nil {
		t.Fatal(err)
	}
	u := units[0]
	for _, n := range u.Normalized.Nodes {
		if strings.HasPrefix(n.Target, "math.") || n.Target == "aten.pymath" {
			t.Errorf("normalized graph still calls %s (node %s)", n.Target, n.Name)
		}
	}
	got, err := interp.Run(u.Decomposed, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := u.Captured.Expected.Outputs
	if len(got) != len(want) {
		t.Fatalf("%d outputs, PyTorch %d", len(got), len(want))
	}
	y, err := interp.AsTensor(got[0])
	if err != nil {
		t.Fatal(err)
	}
	if c := interp.Compare(y, want[0], interp.Tolerance{Rtol: 1e-5, Atol: 1e-6}); !c.Match {
		t.Errorf("output 0 differs from PyTorch: %+v", c)
	}
	for i := 1; i < len(want); i++ {
		w := want[i].Flat(0)
		var g float64
		switch v := got[i].(type) {
		case float64:
			g = v
			if want[i].DType != tensor.Float64 {
				t.Errorf("output %d: gcdbg has a float, Python a %s", i, want[i].DType)
			}
		case int64:
			g = float64(v)
			if want[i].DType != tensor.Int64 {
				t.Errorf("output %d: gcdbg has an int, Python a %s", i, want[i].DType)
			}
		case bool:
			g = b2f(v)
			if want[i].DType != tensor.Bool {
				t.Errorf("output %d: gcdbg has a bool, Python a %s", i, want[i].DType)
			}
		default:
			t.Errorf("output %d: %T %v, want a Python number", i, got[i], got[i])
			continue
		}
		if math.Float64bits(g) != math.Float64bits(w) {
			t.Errorf("output %d: gcdbg %v (%x), CPython %v (%x)", i, g, math.Float64bits(g), w, math.Float64bits(w))
		}
	}
}

// math.sqrt of a tensor is refused saying to use torch.sqrt; an unknown
// math function and any unknown target show the user's source line.
func TestPythonMathRefusals(t *testing.T) {
	x := tensor.FromFloats(tensor.Float32, []int{2}, []float64{1, 4})
	stack := `"meta":{"stack":[{"file":"m.py","line":7,"func":"forward","code":"  y = %s  "}]}`
	for _, c := range []struct{ node, want string }{
		{`{"name":"m","op":"call_function","target":"math.sqrt","args":[{"node":"x"}],` + fmt.Sprintf(stack, "math.sqrt(x)") + `}`,
			`node "m": args[0]: math.sqrt of a tensor`},
		{`{"name":"m","op":"call_function","target":"math.lgamma","args":[{"node":"s"}],` + fmt.Sprintf(stack, "math.lgamma(n)") + `}`,
			`unsupported function "math.lgamma" (at m.py:7: y = math.lgamma(n))`},
		{`{"name":"m","op":"call_method","target":"frobnicate","args":[{"node":"x"}],` + fmt.Sprintf(stack, "x.frobnicate()") + `}`,
			`unsupported Tensor method "frobnicate" (at m.py:7: y = x.frobnicate())`},
		{`{"name":"m","op":"call_function","target":"math.log","args":[0]}`, `math.log(0): math domain error`},
		{`{"name":"m","op":"call_function","target":"math.exp","args":[1000.0]}`, `math.exp(1000): math range error`},
	} {
		js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
		 {"name":"x","op":"placeholder","target":"x"},
		 {"name":"s","op":"call_method","target":"size","args":[{"node":"x"},0]},
		 %s,
		 {"name":"output","op":"output","target":"output","args":[{"node":"x"}]}]}],
		 "tensors":{"x":%s}}`, c.node, tensorJSON(x))
		tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(tr, "normalized")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", err, c.want)
		}
		if c.want == `node "m": args[0]: math.sqrt of a tensor` && !strings.Contains(err.Error(), "torch.sqrt(x)") {
			t.Errorf("error %v does not say to use torch.sqrt", err)
		}
	}
}

// gcdbg's value is checked against the one the trace recorded: a recorded
// value gcdbg cannot reproduce is an error naming both.
func TestPythonMathRecordedValueChecked(t *testing.T) {
	x := tensor.FromFloats(tensor.Float32, []int{4}, []float64{1, 2, 3, 4})
	js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
	 {"name":"x","op":"placeholder","target":"x"},
	 {"name":"s","op":"call_method","target":"size","args":[{"node":"x"},0],"meta":{"value":4}},
	 {"name":"m","op":"call_function","target":"math.sqrt","args":[{"node":"s"}],"meta":{"value":2.5}},
	 {"name":"output","op":"output","target":"output","args":[{"node":"x"}]}]}],
	 "tensors":{"x":%s}}`, tensorJSON(x))
	tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(tr, "normalized")
	if err == nil || !strings.Contains(err.Error(), "gcdbg computes math.sqrt = 2.0 but the trace recorded 2.5") {
		t.Errorf("error %v, want the recorded value disagreement", err)
	}
}
