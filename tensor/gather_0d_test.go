package tensor

import (
	"strings"
	"testing"
)

// index_select of a 0-d self, as PyTorch 1.13 computes it (printed by
// /usr/bin/python3: torch.index_select(torch.tensor(3.), d, idx)): a 0-d
// result, self's value, for an index of any length whose elements are all 0
// ([0], 0-d 0, [0, 0]; dim 0 or -1); "index out of range in self" for [1]
// and [-1]; an empty index gives a tensor PyTorch never writes, which gcdbg
// refuses.
func TestIndexSelect0dSelf(t *testing.T) {
	self := Scalar(Float32, 3)
	for _, c := range []struct {
		idx *Tensor
		dim int
	}{
		{FromInts(Int64, []int{1}, []int64{0}), 0},
		{FromInts(Int64, []int{1}, []int64{0}), -1},
		{FromInts(Int64, []int{}, []int64{0}), 0},
		{FromInts(Int64, []int{2}, []int64{0, 0}), 0},
		{FromInts(Int32, []int{1}, []int64{0}), -1},
	} {
		r, err := IndexSelect(self, c.dim, c.idx)
		if err != nil {
			t.Fatalf("index %v dim %d: %v", c.idx.Shape, c.dim, err)
		}
		if r.Dim() != 0 || r.DType != Float32 || r.Flat(0) != 3 {
			t.Errorf("index %v dim %d: got %v %v %v, want float32 [] 3", c.idx.Shape, c.dim, r.DType, r.Shape, r.Flat(0))
		}
	}
	for _, v := range []int64{1, -1} {
		if _, err := IndexSelect(self, 0, FromInts(Int64, []int{1}, []int64{v})); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("index [%d]: err %v, want out of range", v, err)
		}
	}
	if _, err := IndexSelect(self, 0, FromInts(Int64, []int{0}, nil)); err == nil || !strings.Contains(err.Error(), "uninitialized") {
		t.Errorf("empty index: err %v, want a refusal", err)
	}
}
