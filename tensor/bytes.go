package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
)

// FromBytes decodes little-endian C-contiguous bytes (the trace format's
// and safetensors' layout). The byte length must match exactly.
func FromBytes(dt DType, shape []int, b []byte) (*Tensor, error) {
	n := Numel(shape)
	if dt.Size() == 0 {
		return nil, fmt.Errorf("unsupported dtype %s", dt)
	}
	if want := n * dt.Size(); len(b) != want {
		return nil, fmt.Errorf("%d bytes for %s%v, want %d (%d elements × %d bytes)", len(b), dt, shape, want, n, dt.Size())
	}
	t := New(dt, shape...)
	le := binary.LittleEndian
	for i := 0; i < n; i++ {
		switch dt {
		case Float32:
			t.S.F[i] = float64(math.Float32frombits(le.Uint32(b[4*i:])))
		case Float64:
			t.S.F[i] = math.Float64frombits(le.Uint64(b[8*i:]))
		case Float16:
			t.S.F[i] = float64(HalfToFloat(le.Uint16(b[2*i:])))
		case BFloat16:
			t.S.F[i] = float64(BF16ToFloat(le.Uint16(b[2*i:])))
		case Int64:
			t.S.I[i] = int64(le.Uint64(b[8*i:]))
		case Int32:
			t.S.I[i] = int64(int32(le.Uint32(b[4*i:])))
		case Int8:
			t.S.I[i] = int64(int8(b[i]))
		case Uint8:
			t.S.I[i] = int64(b[i])
		case Bool:
			if b[i] != 0 {
				t.S.I[i] = 1
			}
		}
	}
	return t, nil
}

// Bytes encodes t as little-endian C-contiguous bytes.
func (t *Tensor) Bytes() []byte {
	n := t.Numel()
	sz := t.DType.Size()
	b := make([]byte, n*sz)
	le := binary.LittleEndian
	for i := 0; i < n; i++ {
		switch t.DType {
		case Float32:
			le.PutUint32(b[4*i:], math.Float32bits(float32(t.Flat(i))))
		case Float64:
			le.PutUint64(b[8*i:], math.Float64bits(t.Flat(i)))
		case Float16:
			le.PutUint16(b[2*i:], FloatToHalf(float32(t.Flat(i))))
		case BFloat16:
			le.PutUint16(b[2*i:], FloatToBF16(float32(t.Flat(i))))
		case Int64:
			le.PutUint64(b[8*i:], uint64(t.FlatInt(i)))
		case Int32:
			le.PutUint32(b[4*i:], uint32(t.FlatInt(i)))
		case Int8, Uint8, Bool:
			b[i] = byte(t.FlatInt(i))
		}
	}
	return b
}
