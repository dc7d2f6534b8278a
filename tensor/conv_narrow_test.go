package tensor

import (
	"strings"
	"testing"
)

// PyTorch 1.13's CPU conv2d takes int32, int8 and uint8 tensors; gcdbg
// refuses them, naming the out-of-scope list that says why, and refuses
// bool with PyTorch's own message.
func TestConvNarrowIntsRefused(t *testing.T) {
	for _, dt := range []DType{Int32, Int8, Uint8} {
		x, w := New(dt, 1, 2, 4, 4), New(dt, 3, 2, 2, 2)
		_, err := Conv2d(x, w, nil, [2]int{1, 1}, [2]int{0, 0}, [2]int{1, 1}, 1)
		if err == nil || !strings.Contains(err.Error(), "gcdbg ops --coverage") {
			t.Errorf("%s: %v", dt, err)
		}
	}
	_, err := Conv2d(New(Bool, 1, 2, 4, 4), New(Bool, 3, 2, 2, 2), nil, [2]int{1, 1}, [2]int{0, 0}, [2]int{1, 1}, 1)
	if err == nil || !strings.Contains(err.Error(), "not implemented for 'Bool'") {
		t.Errorf("bool: %v", err)
	}
	if _, err := Conv2d(New(Int64, 1, 2, 4, 4), New(Int64, 3, 2, 2, 2), nil, [2]int{1, 1}, [2]int{0, 0}, [2]int{1, 1}, 1); err != nil {
		t.Errorf("int64: %v", err)
	}
}
