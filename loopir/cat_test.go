package loopir

import (
	"math/rand"
	"testing"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// cat compiles to one pointwise node (clamped loads, where on the offsets)
// for every dim, mixed dtypes, strided and broadcast-free inputs, a single
// input, skipped empty inputs and stack (cat of unsqueezes); a cat of more
// than maxCatInputs inputs stays an eager fallback. The loop IR's result
// equals the eager interpreter's exactly (a copy).
func TestCatCompiles(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	for _, tc := range []struct {
		name    string
		shapes  [][]int
		dim     int64
		permute bool // the first input is a transposed view
		stack   bool
		compile bool
	}{
		{"two on dim 1 (U-Net skip)", [][]int{{2, 3, 4}, {2, 5, 4}}, 1, false, false, true},
		{"three on the last dim", [][]int{{3, 1}, {3, 4}, {3, 2}}, -1, false, false, true},
		{"dim 0, one input", [][]int{{4, 3}}, 0, false, false, true},
		{"strided input", [][]int{{3, 5}, {2, 5}}, 0, true, false, true},
		{"an empty input is skipped", [][]int{{2, 0}, {2, 3}, {2, 0}, {2, 2}}, 1, false, false, true},
		{"stack of 7 steps", [][]int{{2, 3}, {2, 3}, {2, 3}, {2, 3}, {2, 3}, {2, 3}, {2, 3}}, 1, false, true, true},
		{"65 inputs fall back", func() [][]int {
			s := make([][]int, maxCatInputs+1)
			for i := range s {
				s[i] = []int{2, 1}
			}
			return s
		}(), 1, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(t, "cat")
			var ins ir.List
			for i, sh := range tc.shapes {
				var n *ir.Node
				if i == 0 && tc.permute {
					n = b.call("permute", b.input("x0", randT(rng, tensor.Float32, sh[1], sh[0])), ir_tuple(1, 0))
				} else {
					dt := tensor.Float32
					if i == 1 {
						dt = tensor.Float64 // cat promotes
					}
					n = b.input("x"+string(rune('a'+i%26))+string(rune('a'+i/26)), randT(rng, dt, sh...))
				}
				if tc.stack {
					n = b.call("unsqueeze", n, tc.dim)
				}
				ins = append(ins, n)
			}
			out := b.call("cat", ins, tc.dim)
			p := checkAgainstEager(t, b.output(b.call("mul", out, 2.0)), fuseAll)
			if tc.compile {
				noFallback(t, p, "cat")
				return
			}
			fell := false
			for _, n := range p.Nodes {
				fell = fell || n.Kind == Fallback
			}
			if !fell {
				t.Errorf("a cat of %d inputs compiled; want the eager fallback", len(tc.shapes))
			}
		})
	}
}

// select_scatter (select's gradient) compiles to one pointwise node for
// every dim, negative indices, a size-1 dim and a strided source.
func TestSelectScatterCompiles(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	for _, tc := range []struct {
		name       string
		self, src  []int
		dim, index int64
		permuteSrc bool
	}{
		{"dim 0", []int{5, 3, 2}, []int{3, 2}, 0, 2, false},
		{"dim 1 (a time step)", []int{2, 6, 4}, []int{2, 4}, 1, 5, false},
		{"negative index on the last dim", []int{3, 4}, []int{3}, -1, -1, false},
		{"size-1 dim", []int{3, 1, 2}, []int{3, 2}, 1, 0, false},
		{"strided source", []int{4, 3, 5}, []int{3, 5}, 0, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(t, "select_scatter")
			self := b.input("self", randT(rng, tensor.Float32, tc.self...))
			var src *ir.Node
			if tc.permuteSrc {
				src = b.call("permute", b.input("src", randT(rng, tensor.Float32, tc.src[1], tc.src[0])), ir_tuple(1, 0))
			} else {
				src = b.input("src", randT(rng, tensor.Float32, tc.src...))
			}
			out := b.call("select_scatter", self, src, tc.dim, tc.index)
			p := checkAgainstEager(t, b.output(b.call("mul", out, 2.0)), fuseAll)
			noFallback(t, p, "select_scatter")
		})
	}
}
