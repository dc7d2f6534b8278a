package ir

import (
	"strings"
	"testing"

	"gcdbg/tensor"
)

// x.split(4) cuts a dimension of 8 into two; x.split([4]) is
// split_with_sizes and PyTorch refuses it (the sizes must sum to 8), while
// x.split([8]) gives the whole tensor.
func TestSplitListOfOneSize(t *testing.T) {
	d := Lookup("aten.split")
	x := tensor.New(tensor.Float32, 8, 3)
	out, err := Call(d, []Value{x, int64(4), int64(0)})
	if err != nil || len(out.(Tuple)) != 2 {
		t.Fatalf("split(4): %v %v", out, err)
	}
	_, err = Call(d, []Value{x, Tuple{int64(4)}, int64(0)})
	if err == nil || !strings.Contains(err.Error(), "sum exactly to 8") {
		t.Fatalf("split([4]) on a dimension of 8: %v, want PyTorch's split_with_sizes error", err)
	}
	out, err = Call(d, []Value{x, Tuple{int64(8)}, int64(0)})
	if err != nil || len(out.(Tuple)) != 1 {
		t.Fatalf("split([8]): %v %v", out, err)
	}
}
