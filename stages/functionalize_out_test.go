package stages

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
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

// inplaceTrace is `c = x.clone(); c.METHOD(ARGS...); return c` with x and y
// the given float32 tensors.
func inplaceTrace(t *testing.T, method, args string, x, y *tensor.Tensor) *trace.Trace {
	t.Helper()
	js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
	 {"name":"x","op":"placeholder","target":"x"},
	 {"name":"y","op":"placeholder","target":"y"},
	 {"name":"c","op":"call_method","target":"clone","args":[{"node":"x"}]},
	 {"name":"r","op":"call_method","target":%q,"args":%s},
	 {"name":"output","op":"output","target":"output","args":[{"node":"c"}]}]}],
	 "tensors":{"x":%s,"y":%s}}`, method, args, tensorJSON(x), tensorJSON(y))
	tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// x.cos_() and x.atan2_(y), which gcdbg has only out of place: the op, then
// a copy_ into self; the returned clone holds the result.
func TestInplaceByCopy(t *testing.T) {
	x := tensor.FromFloats(tensor.Float32, []int{3}, []float64{0, 1, -2})
	y := tensor.FromFloats(tensor.Float32, []int{3}, []float64{1, -1, 0.5})
	for _, c := range []struct {
		method, args string
		want         []float64
	}{
		{"cos_", `[{"node":"c"}]`, []float64{1, math.Cos(1), math.Cos(-2)}},
		{"atan2_", `[{"node":"c"},{"node":"y"}]`, []float64{math.Atan2(0, 1), math.Atan2(1, -1), math.Atan2(-2, 0.5)}},
	} {
		units, err := Run(inplaceTrace(t, c.method, c.args, x, y), "functional")
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		if mutates(units[0].Functional) {
			t.Fatalf("%s: the functional graph mutates:\n%s", c.method, printFunctional(units[0]))
		}
		vals, err := interp.Run(units[0].Functional, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := vals[0].(*tensor.Tensor).Floats()
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-6 {
				t.Errorf("%s: got %v, want %v", c.method, got, c.want)
				break
			}
		}
	}
	// a result of another shape than self is refused; x.bernoulli_(p) draws
	// with p (ATen's bernoulli.p is empty_like(self).bernoulli_(p)), not with
	// x's values as bernoulli(x) would: keep where u < p
	wide := tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6})
	_, err := Run(inplaceTrace(t, "atan2_", `[{"node":"c"},{"node":"y"}]`, x, wide), "functional")
	if err == nil || !strings.Contains(err.Error(), `node "r"`) || !strings.Contains(err.Error(), "does not broadcast self") {
		t.Errorf("atan2_ of a [3] self with a [2, 3] other: %v", err)
	}
	units, err := Run(inplaceTrace(t, "bernoulli_", `[{"node":"c"},0.25]`, x, y), "functional")
	if err != nil {
		t.Fatalf("bernoulli_: %v", err)
	}
	ps := []string{}
	for _, n := range units[0].Normalized.Nodes {
		if n.Target != "aten.lt" || len(n.Args) < 2 {
			continue
		}
		if u, ok := n.Args[0].(*ir.Node); ok && u.Target == "aten.philox_rand" {
			ps = append(ps, fmt.Sprint(n.Args[1]))
		}
	}
	if len(ps) != 1 || ps[0] != "0.25" {
		t.Errorf("bernoulli_(c, 0.25): keep-where-u-< thresholds %v, want [0.25]", ps)
	}
}
