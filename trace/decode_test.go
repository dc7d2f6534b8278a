package trace

import (
	"encoding/binary"
	"math"
	"testing"

	"gcdbg/tensor"
)

// TestDecodeBytesMatchesFromBytes: the float32 fast path (serial and split
// across cores) decodes exactly as tensor.FromBytes, NaN and -0 included,
// and a wrong length gets FromBytes' error.
func TestDecodeBytesMatchesFromBytes(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1<<18 + 3, 3 << 18} {
		b := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			v := float32(i)*0.37 - 5
			switch i % 5 {
			case 3:
				v = float32(math.NaN())
			case 4:
				v = float32(math.Copysign(0, -1))
			}
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		got, err := decodeBytes(tensor.Float32, []int{n}, b)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := tensor.FromBytes(tensor.Float32, []int{n}, b)
		for i := range want.S.F {
			if math.Float64bits(got.S.F[i]) != math.Float64bits(want.S.F[i]) {
				t.Fatalf("n=%d: element %d = %v, want %v", n, i, got.S.F[i], want.S.F[i])
			}
		}
	}
	_, err := decodeBytes(tensor.Float32, []int{2, 3}, make([]byte, 20))
	_, want := tensor.FromBytes(tensor.Float32, []int{2, 3}, make([]byte, 20))
	if err == nil || err.Error() != want.Error() {
		t.Errorf("short buffer: error %v, want %v", err, want)
	}
}
