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
// than maxCatInputs inputs (an RNN's output stacked over 100 steps) to a
// tree of such nodes, none loading more than maxCatInputs inputs, with no
// eager fallback. The loop IR's result equals the eager interpreter's
// exactly (a copy).
func TestCatCompiles(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	for _, tc := range []struct {
		name    string
		shapes  [][]int
		dim     int64
		permute bool // the first input is a transposed view
		stack   bool
	}{
		{"two on dim 1 (U-Net skip)", [][]int{{2, 3, 4}, {2, 5, 4}}, 1, false, false},
		{"three on the last dim", [][]int{{3, 1}, {3, 4}, {3, 2}}, -1, false, false},
		{"dim 0, one input", [][]int{{4, 3}}, 0, false, false},
		{"strided input", [][]int{{3, 5}, {2, 5}}, 0, true, false},
		{"an empty input is skipped", [][]int{{2, 0}, {2, 3}, {2, 0}, {2, 2}}, 1, false, false},
		{"stack of 7 steps", [][]int{{2, 3}, {2, 3}, {2, 3}, {2, 3}, {2, 3}, {2, 3}, {2, 3}}, 1, false, true},
		{"65 inputs: two levels", sameShapes(maxCatInputs+1, 2, 1), 1, false, false},
		{"stack of 100 steps (a GRU's output), strided first step", sameShapes(100, 3, 2), 1, true, true},
		{"300 uneven inputs on dim 0", func() [][]int {
			s := make([][]int, 300)
			for i := range s {
				s[i] = []int{1 + i%3, 2}
			}
			s[7][0] = 0 // skipped
			return s
		}(), 0, false, false},
		{"4500 inputs: three levels", sameShapes(4500, 1, 1), 1, false, false},
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
			noFallback(t, p, "cat")
			for _, n := range p.Nodes {
				loads := 0
				for _, st := range n.Body {
					if st.Op == "load" {
						loads++
					}
				}
				if loads > maxCatInputs {
					t.Errorf("node %s loads %d times, over maxCatInputs", n.Name, loads)
				}
			}
		})
	}
}

// sameShapes is k copies of the shape sh.
func sameShapes(k int, sh ...int) [][]int {
	s := make([][]int, k)
	for i := range s {
		s[i] = sh
	}
	return s
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
