package loopir

import (
	"math/rand"
	"testing"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// scatter without reduce= is an extern call (render/scatter_extern.go
// writes it) for a tensor src and for a value, along either dim, with
// duplicate indices and a long index; reduce=, an index narrower than self
// off dim, a 0-d self and 16-bit floats stay eager fallbacks. The loop IR's
// result equals the eager interpreter's (the C code is checked against
// PyTorch by runner/scatter_test.go and stress/bounds_scatter_test.go).
func TestScatterLowersToExtern(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	idx := func(max int, shape ...int) *tensor.Tensor {
		x := tensor.New(tensor.Int64, shape...)
		for i := 0; i < x.Numel(); i++ {
			x.SetFlat(i, float64(rng.Intn(max)))
		}
		return x
	}
	for _, tc := range []struct {
		name   string
		dt     tensor.DType
		self   []int
		index  []int
		dim    int64
		value  ir.Arg // nil: a src tensor of index's shape
		reduce ir.Arg
		extern bool
	}{
		{"dim 1 with duplicates", tensor.Float32, []int{4, 6}, []int{4, 9}, 1, nil, nil, true},
		{"dim 0", tensor.Float32, []int{5, 3}, []int{7, 3}, 0, nil, nil, true},
		{"long index", tensor.Float64, []int{6, 5}, []int{40, 5}, 0, nil, nil, true},
		{"a float value", tensor.Float32, []int{4, 6}, []int{4, 2}, 1, -1.5, nil, true},
		{"an int value into int64", tensor.Int64, []int{4, 6}, []int{4, 2}, 1, int64(7), nil, true},
		{"a bool value into bool", tensor.Bool, []int{4, 6}, []int{4, 2}, 1, true, nil, true},
		{"reduce= falls back", tensor.Float32, []int{4, 6}, []int{4, 2}, 1, nil, "add", false},
		{"narrower index falls back", tensor.Float32, []int{4, 6}, []int{2, 3}, 1, nil, nil, false},
		{"float16 falls back", tensor.Float16, []int{4, 6}, []int{4, 2}, 1, nil, nil, false},
		{"a float value into int64 falls back", tensor.Int64, []int{4, 6}, []int{4, 2}, 1, 2.5, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(t, "scatter")
			self := b.input("self", randT(rng, tensor.Float32, tc.self...).To(tc.dt))
			index := b.input("index", idx(tc.self[tc.dim], tc.index...))
			var out *ir.Node
			if tc.value != nil {
				out = b.call("scatter", self, tc.dim, index, tc.value)
			} else {
				src := b.input("src", randT(rng, tensor.Float32, tc.index...).To(tc.dt))
				out = b.call("scatter", self, tc.dim, index, src, nil, tc.reduce)
			}
			p := checkAgainstEager(t, b.output(out), fuseAll)
			extern, fallback := false, false
			for _, n := range p.Nodes {
				extern = extern || n.Kind == Extern && n.Op == "scatter"
				fallback = fallback || n.Kind == Fallback
			}
			if extern != tc.extern || fallback == tc.extern {
				t.Errorf("extern %v, fallback %v; want extern %v:\n%s", extern, fallback, tc.extern, Print(p))
			}
		})
	}
}
