package loopir

import (
	"math"
	"math/rand"
	"testing"

	"gcdbg/ir"
	"gcdbg/tensor"
)

func noFallback(t *testing.T, p *Program, op string) {
	t.Helper()
	for _, n := range p.Nodes {
		if n.Kind == Fallback || n.Kind == Extern {
			t.Errorf("%s: node %s is %s, want compiled loops:\n%s", op, n.Name, n.Kind, Print(p))
		}
	}
}

// slice_scatter compiles to one pointwise node, for every form the
// functionalization of x[..., a:b:s] = v produces: None and out-of-range
// bounds, negative starts, steps, every dim, a strided source.
func TestSliceScatterCompiles(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, tc := range []struct {
		name             string
		self, src        []int
		dim              int64
		start, end, step ir.Arg
		permuteSrc       bool
	}{
		{"middle of dim 1", []int{2, 6, 8}, []int{2, 3, 8}, 1, int64(2), int64(5), int64(1), false},
		{"whole dim 0 (None, int64 max)", []int{2, 6, 8}, []int{2, 6, 8}, 0, int64(0), int64(9223372036854775807), int64(1), false},
		{"None bounds", []int{4, 5}, []int{4, 5}, 1, nil, nil, int64(1), false},
		{"negative start", []int{4, 7}, []int{4, 3}, 1, int64(-3), nil, int64(1), false},
		{"step 2", []int{5, 9}, []int{5, 4}, 1, int64(1), int64(8), int64(2), false},
		{"step 3 on dim 0", []int{10, 3}, []int{4, 3}, 0, int64(0), nil, int64(3), false},
		{"strided source", []int{6, 4}, []int{2, 4}, 0, int64(1), int64(3), int64(1), true},
		{"empty slice", []int{3, 4}, []int{3, 0}, 1, int64(2), int64(2), int64(1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(t, "slice_scatter")
			self := b.input("self", randT(rng, tensor.Float32, tc.self...))
			var src *ir.Node
			if tc.permuteSrc {
				s := b.input("src", randT(rng, tensor.Float32, tc.src[1], tc.src[0]))
				src = b.call("permute", s, ir_tuple(1, 0))
			} else {
				src = b.input("src", randT(rng, tensor.Float32, tc.src...))
			}
			out := b.call("slice_scatter", self, src, tc.dim, tc.start, tc.end, tc.step)
			p := checkAgainstEager(t, b.output(b.call("mul", out, 2.0)), fuseAll)
			noFallback(t, p, "slice_scatter")
		})
	}
}

// scatter_add with a short index (gather's gradient) compiles to a
// reduction over the index and a pointwise add; duplicates add up. A long
// index is an extern call (render/scatter_extern.go); an index narrower
// than self off dim stays an eager fallback.
func TestScatterAddCompiles(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	idx := func(max int, shape ...int) *tensor.Tensor {
		x := tensor.New(tensor.Int64, shape...)
		for i := 0; i < x.Numel(); i++ {
			x.SetFlat(i, float64(rng.Intn(max)))
		}
		return x
	}
	for _, tc := range []struct {
		name    string
		self    []int
		index   []int
		dim     int64
		compile bool
	}{
		{"cross-entropy grad: one target per row", []int{16, 5}, []int{16, 1}, 1, true},
		{"duplicates along dim 1", []int{4, 6}, []int{4, 9}, 1, true},
		{"dim 0", []int{5, 3}, []int{7, 3}, 0, true},
		{"long index: an extern call", []int{4, 6}, []int{4, 40}, 1, true},
		{"long index along dim 0: an extern call", []int{6, 5}, []int{40, 5}, 0, true},
		{"narrower index falls back", []int{4, 6}, []int{2, 3}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(t, "scatter_add")
			self := b.input("self", randT(rng, tensor.Float32, tc.self...))
			index := b.input("index", idx(tc.self[tc.dim], tc.index...))
			src := b.input("src", randT(rng, tensor.Float32, tc.index...))
			out := b.call("scatter_add", self, tc.dim, index, src)
			p := checkAgainstEager(t, b.output(out), fuseAll)
			fallback := false
			for _, n := range p.Nodes {
				fallback = fallback || n.Kind == Fallback
			}
			if fallback == tc.compile {
				t.Errorf("fallback %v, want compiled %v:\n%s", fallback, tc.compile, Print(p))
			}
		})
	}
}

// scatter_add with one index entry along dim is one pointwise node (no
// reduction kernel writing a one-hot tensor): points the index misses keep
// self bit for bit, -0.0 and NaN included, and a hit adds src once, as
// PyTorch's scatter_add (values from torch 1.13: torch.tensor([[-0., 1.,
// nan], [2., -0., 3.]]).scatter_add(1, torch.tensor([[1], [0]]),
// torch.tensor([[0.5], [-2.]])) = [[-0., 1.5, nan], [0., -0., 3.]]).
func TestScatterAddOneIsPointwise(t *testing.T) {
	b := newGB(t, "scatter_add")
	self := b.input("self", tensor.FromFloats(tensor.Float32, []int{2, 3}, []float64{math.Copysign(0, -1), 1, math.NaN(), 2, math.Copysign(0, -1), 3}))
	index := b.input("index", tensor.FromInts(tensor.Int64, []int{2, 1}, []int64{1, 0}))
	src := b.input("src", tensor.FromFloats(tensor.Float32, []int{2, 1}, []float64{0.5, -2}))
	p, err := Lower(b.output(b.call("scatter_add", self, int64(1), index, src)))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range p.Nodes {
		if n.Kind != Pointwise {
			t.Errorf("node %s is %v, want every node pointwise:\n%s", n.Name, n.Kind, Print(p))
		}
	}
	got, err := Run(p, nil, InputsFromGraph(p))
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{math.Copysign(0, -1), 1.5, math.NaN(), 0, math.Copysign(0, -1), 3}
	for i, w := range want {
		g := got[0].Flat(i)
		if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
			t.Errorf("element %d: %v, PyTorch %v", i, g, w)
		}
	}
}
