package ir

import (
	"testing"

	"gcdbg/tensor"
)

// A node's canonical args after binding pack *size into one tuple and keep
// the parameters after it positional (zeros((4, 8), torch.float64)); a
// second Bind of them (the normalizer binds each node it adds) must read
// the same values, not a nested size. torch.zeros(4, 8, dtype=...) arrives
// through normalize in that form.
func TestBindPackedVariadicThenPositional(t *testing.T) {
	d := Lookup("aten.zeros")
	first, err := d.Schema.Bind([]Arg{int64(4), int64(8)}, []Kwarg{{Name: "dtype", Value: tensor.Float64}})
	if err != nil {
		t.Fatal(err)
	}
	again, err := d.Schema.Bind(d.Schema.Trim(first), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ArgEqual(again[0], Tuple{int64(4), int64(8)}) || !ArgEqual(again[1], tensor.Float64) {
		t.Fatalf("rebound args %v, want size (4, 8), dtype float64", again[:2])
	}
	v, err := Call(d, again)
	if err != nil {
		t.Fatal(err)
	}
	x := v.(*tensor.Tensor)
	if x.DType != tensor.Float64 || len(x.Shape) != 2 || x.Shape[0] != 4 || x.Shape[1] != 8 {
		t.Fatalf("zeros((4, 8), float64) = %s%v", x.DType, x.Shape)
	}
	// x.view(2, 3) and x.view((2, 3)) keep their meaning
	for _, args := range [][]Arg{{int64(2), int64(3)}, {Tuple{int64(2), int64(3)}}} {
		b, err := Lookup("aten.zeros").Schema.Bind(args, nil)
		if err != nil || !ArgEqual(b[0], Tuple{int64(2), int64(3)}) {
			t.Errorf("Bind(%v) = %v, %v", args, b, err)
		}
	}
}
