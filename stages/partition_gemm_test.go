package stages

import (
	"slices"
	"testing"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// A two-layer FFN in training, h = sin(x @ w1), y = h @ w2: the backward
// needs a = x @ w1 (for sin's derivative cos(a)) and h (for w2's gradient
// h^T @ g, read through a transpose). The byte-minimal cut saves a alone
// and recomputes h; but the forward materializes h anyway (it is a GEMM
// operand), so at 1 MiB and more h is saved, not recomputed (gemmOperand:
// ffn_train's GELU recompute cost 0.7-1.0 ms a step). And of h and its
// transpose, the same bytes, the cut saves h: a saved view would be a
// transposing copy written by the forward. The partition computes the
// joint's values exactly (checkPartition, under the eager interpreter).
func TestPartitionSavesGEMMOperands(t *testing.T) {
	for _, tc := range []struct {
		rows      int
		recompute bool // below 1 MiB the byte-minimal cut stands
	}{{256, false}, {8, true}} {
		b := newHandJoint(t, "ffn")
		x := b.primal("primals_1", "x", tc.rows, 16)
		w1 := b.primal("primals_2", "w1", 16, 1024)
		w2 := b.primal("primals_3", "w2", 1024, 16)
		g := b.placeholder("tangents_1", "tangents_1", tensor.New(tensor.Float32, tc.rows, 16))
		a := b.call("a", "aten.mm", x, w1)
		h := b.call("h", "aten.sin", a)
		y := b.call("y", "aten.mm", h, w2)
		gh := b.call("gh", "aten.mm", g, b.call("w2_t", "aten.permute", w2, ir.List{int64(1), int64(0)}))
		gw2 := b.call("gw2", "aten.mm", b.call("h_t", "aten.permute", h, ir.List{int64(1), int64(0)}), g)
		ga := b.call("ga", "aten.mul", gh, b.call("cos", "aten.cos", a))
		gw1 := b.call("gw1", "aten.mm", b.call("x_t", "aten.permute", x, ir.List{int64(1), int64(0)}), ga)
		j := b.joint([]*ir.Node{y}, []*ir.Node{gw1, gw2}, []string{"w1", "w2"})
		u := partitionOf(t, j)
		checkPartition(t, j, u.Partition, "min-cut")
		saved := savedNames(u.Partition)
		if slices.Contains(saved, "h_t") {
			t.Errorf("rows %d: min-cut saves the transposed view h_t (%v), want its base", tc.rows, saved)
		}
		if got := slices.Contains(u.Partition.Recomputed, "h"); got != tc.recompute {
			t.Errorf("rows %d: h recomputed = %v (saved %v, recomputed %v), want %v", tc.rows, got, saved, u.Partition.Recomputed, tc.recompute)
		}
		if !tc.recompute && !slices.Contains(saved, "h") {
			t.Errorf("rows %d: min-cut saves %v, want h among them", tc.rows, saved)
		}
	}
}
