package tensor

import "testing"

// gcdbg's own randperm draw (an unrecorded torch.randperm) is a
// permutation of 0..n-1, different for another offset, in the dtype asked.
func TestPhiloxRandpermIsAPermutation(t *testing.T) {
	a, err := PhiloxRandperm(257, 3, 0, Int64)
	if err != nil {
		t.Fatal(err)
	}
	b, err := PhiloxRandperm(257, 3, 260, Float32)
	if err != nil {
		t.Fatal(err)
	}
	if a.DType != Int64 || b.DType != Float32 {
		t.Fatalf("dtypes %s, %s", a.DType, b.DType)
	}
	for _, p := range []*Tensor{a, b} {
		seen := make([]bool, 257)
		for i := 0; i < 257; i++ {
			v := int(p.Flat(i))
			if v < 0 || v >= 257 || seen[v] {
				t.Fatalf("%s draw: element %d is %d, not a permutation", p.DType, i, v)
			}
			seen[v] = true
		}
	}
	same, fixed := true, 0
	for i := 0; i < 257; i++ {
		same = same && a.Flat(i) == b.Flat(i)
		if int(a.Flat(i)) == i {
			fixed++
		}
	}
	if same || fixed > 20 {
		t.Errorf("offsets 0 and 260 drew the same permutation (%v) or one with %d fixed points", same, fixed)
	}
}
