package tensor

import (
	"reflect"
	"testing"
)

// ATen's nearest upsampling takes uint8 (PyTorch 1.13: F.interpolate(x, size=5, mode="nearest")
// with x = arange(6, uint8).reshape(1, 2, 3) * 40 + 7 gives the values below); its linear modes
// do not ("compute_indices_weights_linear" not implemented for 'Byte'), and gcdbg refuses them.
func TestInterpolateNearestUint8(t *testing.T) {
	x := FromInts(Uint8, []int{1, 2, 3}, []int64{7, 47, 87, 127, 167, 207})
	got, err := Interpolate(x, []int{5}, nil, "nearest", false)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{7, 7, 47, 47, 87, 127, 127, 167, 167, 207}
	if got.DType != Uint8 || !reflect.DeepEqual(got.Shape, []int{1, 2, 5}) {
		t.Fatalf("got %v %v", got.DType, got.Shape)
	}
	for i, w := range want {
		if v := got.FlatInt(i); v != w {
			t.Fatalf("element %d: got %d, PyTorch %d", i, v, w)
		}
	}
	if _, err := Interpolate(x, []int{5}, nil, "linear", false); err == nil {
		t.Fatal("linear on uint8 should be refused, as PyTorch does")
	}
}
