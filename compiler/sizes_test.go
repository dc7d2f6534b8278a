package compiler

import (
	"strings"
	"testing"

	"gcdbg/tensor"
)

// Input sizes in a manifest may be expressions of the symbols (a dynamic
// entry whose graph views x as 8*s0 rows): bare dims bind the symbols, in
// any input order, and every expression dim is checked against them.
func TestLayoutAffineSizes(t *testing.T) {
	m := &Manifest{
		Symbols: []string{"ks0"},
		Buffers: []BufferSpec{
			{Name: "rows", Kind: "input", DType: "float32", Sizes: []string{"8*ks0", "4"}, Arena: -1},
			{Name: "x", Kind: "input", DType: "float32", Sizes: []string{"ks0", "8", "4"}, Arena: -1},
			{Name: "out", Kind: "output", DType: "float32", Sizes: []string{"2*ks0 + 1", "ks0*4"}, Arena: -1},
		},
	}
	in := func(rows, x int) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"rows": tensor.New(tensor.Float32, rows, 4), "x": tensor.New(tensor.Float32, x, 8, 4)}
	}
	l, err := planLayout(m, in(40, 5))
	if err != nil {
		t.Fatal(err)
	}
	if l.syms["ks0"] != 5 || l.shapes[2][0] != 11 || l.shapes[2][1] != 20 {
		t.Errorf("ks0 = %d, out shape %v; want 5, [11 20]", l.syms["ks0"], l.shapes[2])
	}
	_, err = planLayout(m, in(32, 5))
	if err == nil || !strings.Contains(err.Error(), `input buffer "rows" dim 0`) || !strings.Contains(err.Error(), "8*ks0 = 40") {
		t.Errorf("inconsistent 8*ks0: %v", err)
	}
	// With no bare dim, a symbol is solved from a dim affine in it alone.
	m.Buffers = m.Buffers[:1]
	m.Buffers = append(m.Buffers, BufferSpec{Name: "out", Kind: "output", DType: "float32", Sizes: []string{"ks0"}, Arena: -1})
	if l, err = planLayout(m, map[string]*tensor.Tensor{"rows": tensor.New(tensor.Float32, 24, 4)}); err != nil || l.syms["ks0"] != 3 {
		t.Errorf("solving 8*ks0 = 24: %v %v", l, err)
	}
	if _, err = planLayout(m, map[string]*tensor.Tensor{"rows": tensor.New(tensor.Float32, 25, 4)}); err == nil || !strings.Contains(err.Error(), `"rows" dim 0`) {
		t.Errorf("8*ks0 = 25 should fail naming the input and dim: %v", err)
	}
}
