package ir

import (
	"testing"

	"gcdbg/tensor"
)

// The functional ops are core, not in-place, and each equals the in-place
// write it replaces (setitem on a copy) while leaving its input alone.
func TestFunctionalOpsEqualTheirInplaceWrites(t *testing.T) {
	for _, name := range []string{"aten.slice_scatter", "aten.select_scatter", "aten.index_put"} {
		d := Lookup(name)
		if d == nil || d.Inplace || !IsCore(name) {
			t.Fatalf("%s: registered %v, in-place or not core", name, d != nil)
		}
	}
	x := tensor.New(tensor.Float32, 3, 4)
	for i := 0; i < 12; i++ {
		x.SetFlat(i, float64(i))
	}
	src := tensor.FromFloats(tensor.Float32, []int{3, 2}, []float64{-1, -2, -3, -4, -5, -6})
	row := tensor.FromFloats(tensor.Float32, []int{4}, []float64{9, 8, 7, 6})
	cases := []struct {
		op    string
		args  []Value
		index Value // the setitem subscript it must equal
		value *tensor.Tensor
	}{
		{"aten.slice_scatter", []Value{x, src, int64(1), int64(1), nil, int64(2)}, Tuple{Slice{}, Slice{Start: int64(1), Step: int64(2)}}, src},
		{"aten.select_scatter", []Value{x, row, int64(0), int64(-1)}, int64(-1), row},
		{"aten.index_put", []Value{x, Tuple{List{int64(0), int64(2)}, int64(1)}, 5.0}, Tuple{List{int64(0), int64(2)}, int64(1)}, tensor.PyNumber(5.0)},
	}
	for _, c := range cases {
		got, err := Call(Lookup(c.op), c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		want := x.Clone()
		if _, err := Call(Lookup("aten.setitem"), []Value{want, c.index, c.value}); err != nil {
			t.Fatal(err)
		}
		g := got.(*tensor.Tensor)
		for i := 0; i < 12; i++ {
			if g.Flat(i) != want.Flat(i) {
				t.Fatalf("%s: element %d = %v, setitem gives %v", c.op, i, g.Flat(i), want.Flat(i))
			}
			if x.Flat(i) != float64(i) {
				t.Fatalf("%s mutated its input", c.op)
			}
		}
	}
	if _, err := Call(Lookup("aten.slice_scatter"), []Value{x, "no", int64(0)}); err == nil {
		t.Error("slice_scatter accepted a string src")
	}
}
