package stages

import (
	"fmt"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// outTrace is `r = target(x, y, out=OUT); return r, buf` with x, y [2, 3]
// float32 and buf the placeholder given by bufJSON.
func outTrace(t *testing.T, target, args, out, bufJSON string) *trace.Trace {
	t.Helper()
	x := tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{-1.5, 0.25, 2, 3, -0.5, 1})
	y := tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{0.5, -2, 1, 4, 2, -1})
	js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
	 {"name":"x","op":"placeholder","target":"x"},
	 {"name":"y","op":"placeholder","target":"y"},
	 {"name":"buf","op":"placeholder","target":"buf"},
	 {"name":"r","op":"call_function","target":%q,"args":%s,"kwargs":{"out":%s}},
	 {"name":"output","op":"output","target":"output","args":[[{"node":"r"},{"node":"buf"}]]}]}],
	 "tensors":{"x":%s,"y":%s,"buf":%s}}`, target, args, out, tensorJSON(x), tensorJSON(y), bufJSON)
	tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// torch.add(x, y, out=buf) inside a compiled function: the functional graph
// computes add and returns it for r and for buf (read after the write), and
// writes buf back as a mutated input; nothing in it mutates.
func TestOutVariantWritesTheBuffer(t *testing.T) {
	buf := tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{7, 7, 7, 7, 7, 7})
	tr := outTrace(t, "torch.add", `[{"node":"x"},{"node":"y"}]`, `{"node":"buf"}`, tensorJSON(buf))
	units, err := Run(tr, "functional")
	if err != nil {
		t.Fatal(err)
	}
	u := units[0]
	if mutates(u.Functional) {
		t.Fatalf("the functional graph mutates:\n%s", printFunctional(u))
	}
	info := u.FunctionalInfo()
	if info.NumOutputs != 2 || len(info.Writebacks) != 1 || info.Writebacks[0].Input != "buf" {
		t.Fatalf("functional info %+v, want 2 outputs and buf written back", info)
	}
	vals, err := interp.Run(u.Functional, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-1, -1.75, 3, 7, 1.5, 0} // x + y
	for i, v := range vals {
		got := v.(*tensor.Tensor).Floats()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("output %d = %v, want %v (x + y)", i, got, want)
		}
	}
}

// torch.max(x, 1, out=(values, indices)): one copy_ per buffer.
func TestOutVariantTuple(t *testing.T) {
	x := tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{-1.5, 0.25, 2, 3, -0.5, 1})
	vals := tensor.FromFloats(tensor.Float32, []int{2}, []float64{9, 9})
	idx := tensor.FromFloats(tensor.Int64, []int{2}, []float64{5, 5})
	js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
	 {"name":"x","op":"placeholder","target":"x"},
	 {"name":"v","op":"placeholder","target":"v"},
	 {"name":"i","op":"placeholder","target":"i"},
	 {"name":"r","op":"call_function","target":"torch.max","args":[{"node":"x"},1],"kwargs":{"out":[{"node":"v"},{"node":"i"}]}},
	 {"name":"output","op":"output","target":"output","args":[[{"node":"v"},{"node":"i"}]]}]}],
	 "tensors":{"x":%s,"v":%s,"i":%s}}`, tensorJSON(x), tensorJSON(vals), tensorJSONOf(idx))
	tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "functional")
	if err != nil {
		t.Fatal(err)
	}
	u := units[0]
	if len(u.FunctionalInfo().Writebacks) != 2 {
		t.Fatalf("write-backs %+v, want v and i", u.FunctionalInfo())
	}
	got, err := interp.Run(u.Functional, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, i := got[0].(*tensor.Tensor).Floats(), got[1].(*tensor.Tensor).Floats(); fmt.Sprint(v) != "[2 3]" || fmt.Sprint(i) != "[2 0]" {
		t.Errorf("max(x, 1, out=(v, i)) = %v, %v; want [2 3], [2 0]", v, i)
	}
}

// Buffers gcdbg does not take are refused with the node and field named,
// never a panic.
func TestOutVariantRefusals(t *testing.T) {
	other := tensor.FromFloats(tensor.Float32, []int{3}, []float64{1, 2, 3})
	ints := tensor.FromFloats(tensor.Int64, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6})
	for _, c := range []struct{ out, buf, want string }{
		{`{"node":"buf"}`, tensorJSON(other), "out= buffer float32[3] for a result float32[2, 3]"},
		{`{"node":"buf"}`, tensorJSONOf(ints), "out= buffer int64"},
		{`5`, tensorJSON(other), "kwargs.out"},
		{`[{"node":"buf"},{"node":"x"}]`, tensorJSON(other), "2 out= buffer(s) for a call with 1 tensor result(s)"},
	} {
		tr := outTrace(t, "torch.add", `[{"node":"x"},{"node":"y"}]`, c.out, c.buf)
		_, err := Run(tr, "functional")
		if err == nil || !strings.Contains(err.Error(), `node "r"`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("out=%s: got %v, want an error naming node r and %q", c.out, err, c.want)
		}
	}
}

// tensorJSONOf is tensorJSON for a tensor of any dtype.
func tensorJSONOf(t *tensor.Tensor) string {
	return strings.Replace(tensorJSON(t), `"dtype":"float32"`, fmt.Sprintf(`"dtype":%q`, t.DType), 1)
}
