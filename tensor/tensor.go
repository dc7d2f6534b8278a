package tensor

import (
	"fmt"
	"math"
	"strings"
)

// Storage holds a tensor's elements. Floating dtypes live in F (float32
// values are kept rounded to float32); integer and bool dtypes live in I
// (bool as 0/1). Exactly one of the two is non-nil. Views share a Storage,
// so in-place ops through a view are visible in its base, as in PyTorch.
type Storage struct {
	F []float64
	I []int64
}

// Tensor is a strided view of a Storage. Strides and Offset count elements.
type Tensor struct {
	DType   DType
	Shape   []int
	Strides []int
	Offset  int
	S       *Storage
	// Wrapped marks a 0-dim tensor that stands for a Python number (PyTorch's
	// "wrapped number"): it takes part in type promotion as a scalar.
	Wrapped bool
}

// Numel is the number of elements of a shape.
func Numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// ContiguousStrides are the row-major strides of a shape.
func ContiguousStrides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		if shape[i] > 1 {
			s *= shape[i]
		}
	}
	return st
}

// New allocates a zero-filled contiguous tensor.
func New(dt DType, shape ...int) *Tensor {
	n := Numel(shape)
	s := &Storage{}
	if dt.IsFloat() {
		s.F = make([]float64, n)
	} else {
		s.I = make([]int64, n)
	}
	return &Tensor{DType: dt, Shape: append([]int{}, shape...), Strides: ContiguousStrides(shape), S: s}
}

// FromFloats builds a contiguous tensor from float64 data (rounded to dt).
func FromFloats(dt DType, shape []int, data []float64) *Tensor {
	if len(data) != Numel(shape) {
		panic(fmt.Sprintf("tensor.FromFloats: %d values for shape %v", len(data), shape))
	}
	t := New(dt, shape...)
	for i, v := range data {
		t.SetFlat(i, v)
	}
	return t
}

// FromInts builds a contiguous integer or bool tensor.
func FromInts(dt DType, shape []int, data []int64) *Tensor {
	if len(data) != Numel(shape) {
		panic(fmt.Sprintf("tensor.FromInts: %d values for shape %v", len(data), shape))
	}
	t := New(dt, shape...)
	for i, v := range data {
		t.SetFlatInt(i, v)
	}
	return t
}

// Scalar makes a 0-dim tensor.
func Scalar(dt DType, v float64) *Tensor {
	t := New(dt)
	t.SetFlat(0, v)
	return t
}

// PyNumber wraps a Python number as a 0-dim tensor that promotes like a
// scalar: bool -> Bool, int -> Int64, float -> Float64 (promotion then
// yields float32 against integer tensors, as PyTorch's default dtype does).
func PyNumber(v any) *Tensor {
	var t *Tensor
	switch x := v.(type) {
	case bool:
		t = New(Bool)
		if x {
			t.S.I[0] = 1
		}
	case int:
		t = New(Int64)
		t.S.I[0] = int64(x)
	case int64:
		t = New(Int64)
		t.S.I[0] = x
	case float64:
		t = New(Float64)
		t.S.F[0] = x
	default:
		panic(fmt.Sprintf("tensor.PyNumber: %T", v))
	}
	t.Wrapped = true
	return t
}

// Operand describes t for ResultType.
func (t *Tensor) Operand() Operand {
	return Operand{DType: t.DType, ZeroD: len(t.Shape) == 0, Scalar: t.Wrapped}
}

func (t *Tensor) Numel() int { return Numel(t.Shape) }
func (t *Tensor) Dim() int   { return len(t.Shape) }

// IsContiguous reports whether t is row-major with no gaps (size-1 dims ignored).
func (t *Tensor) IsContiguous() bool {
	s := 1
	for i := len(t.Shape) - 1; i >= 0; i-- {
		if t.Shape[i] == 1 {
			continue
		}
		if t.Strides[i] != s {
			return false
		}
		s *= t.Shape[i]
	}
	return true
}

// Round converts a float64 to the precision of dt (the value a tensor of
// that dtype would hold). Integer dtypes truncate toward zero and wrap as C does.
func Round(dt DType, v float64) float64 {
	switch dt {
	case Float32:
		return float64(float32(v))
	case Float16:
		return roundHalf(v)
	case BFloat16:
		return roundBF16(v)
	case Float64:
		return v
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return float64(wrapInt(dt, int64(v)))
}

func wrapInt(dt DType, v int64) int64 {
	switch dt {
	case Int32:
		return int64(int32(v))
	case Int8:
		return int64(int8(v))
	case Uint8:
		return int64(uint8(v))
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}

func roundBF16(v float64) float64 {
	b := math.Float32bits(float32(v))
	if b&0x7fc00000 == 0x7fc00000 { // NaN stays NaN
		return v
	}
	// round to nearest even on the upper 16 bits
	b += 0x7fff + (b>>16)&1
	return float64(math.Float32frombits(b &^ 0xffff))
}

func roundHalf(v float64) float64 {
	return float64(HalfToFloat(FloatToHalf(float32(v))))
}

// flatIndex maps a logical row-major index to a storage position.
func (t *Tensor) flatIndex(i int) int {
	pos := t.Offset
	for d := len(t.Shape) - 1; d >= 0; d-- {
		n := t.Shape[d]
		pos += (i % n) * t.Strides[d]
		i /= n
	}
	return pos
}

// Pos maps a multi-index to a storage position.
func (t *Tensor) Pos(idx []int) int {
	pos := t.Offset
	for d, i := range idx {
		pos += i * t.Strides[d]
	}
	return pos
}

// Flat reads the i-th element in row-major logical order as float64.
func (t *Tensor) Flat(i int) float64 {
	p := t.flatIndex(i)
	if t.S.F != nil {
		return t.S.F[p]
	}
	return float64(t.S.I[p])
}

// FlatInt reads the i-th element as int64 (floats truncate toward zero).
func (t *Tensor) FlatInt(i int) int64 {
	p := t.flatIndex(i)
	if t.S.I != nil {
		return t.S.I[p]
	}
	return int64(t.S.F[p])
}

// SetFlat writes the i-th element, rounding to the tensor's dtype.
func (t *Tensor) SetFlat(i int, v float64) {
	p := t.flatIndex(i)
	if t.S.F != nil {
		t.S.F[p] = Round(t.DType, v)
	} else {
		if t.DType == Bool {
			if v != 0 {
				t.S.I[p] = 1
			} else {
				t.S.I[p] = 0
			}
			return
		}
		t.S.I[p] = FloatToInt(t.DType, v)
	}
}

// FloatToInt converts a float to an integer dtype as PyTorch does on the
// CPU (its static_cast, x86's cvttss2si): int64 truncates through int64,
// the narrower dtypes through int32 and then wrap; NaN, ±Inf and values
// outside the intermediate's range give its minimum. (Go's int64(NaN) is
// unspecified; PyTorch's int32 cast of NaN is -2147483648, not 0.) The
// generated C does the same (render's floatToInt).
func FloatToInt(dt DType, v float64) int64 {
	if dt == Bool {
		if v != 0 {
			return 1
		}
		return 0
	}
	if dt == Int64 {
		if v >= -9223372036854775808.0 && v < 9223372036854775808.0 {
			return int64(v)
		}
		return math.MinInt64
	}
	i32 := int64(math.MinInt32)
	if v >= -2147483648.0 && v < 2147483648.0 {
		i32 = int64(int32(v))
	}
	return wrapInt(dt, i32)
}

// SetFlatInt writes an integer to the i-th element.
func (t *Tensor) SetFlatInt(i int, v int64) {
	p := t.flatIndex(i)
	if t.S.I != nil {
		t.S.I[p] = wrapInt(t.DType, v)
	} else {
		t.S.F[p] = Round(t.DType, float64(v))
	}
}

// At reads the element at a multi-index.
func (t *Tensor) At(idx ...int) float64 {
	p := t.Pos(idx)
	if t.S.F != nil {
		return t.S.F[p]
	}
	return float64(t.S.I[p])
}

// Item reads the single element of a one-element tensor.
func (t *Tensor) Item() float64 { return t.Flat(0) }

// Floats returns the elements in row-major order as float64 (a copy).
func (t *Tensor) Floats() []float64 {
	n := t.Numel()
	out := make([]float64, n)
	if t.IsContiguous() && t.S.F != nil {
		copy(out, t.S.F[t.Offset:t.Offset+n])
		return out
	}
	for i := range out {
		out[i] = t.Flat(i)
	}
	return out
}

// Ints returns the elements in row-major order as int64 (a copy).
func (t *Tensor) Ints() []int64 {
	out := make([]int64, t.Numel())
	for i := range out {
		out[i] = t.FlatInt(i)
	}
	return out
}

// View returns a tensor sharing t's storage with another shape/strides/offset.
func (t *Tensor) View(shape, strides []int, offset int) *Tensor {
	return &Tensor{DType: t.DType, Shape: shape, Strides: strides, Offset: offset, S: t.S}
}

// Contiguous returns t itself when already contiguous, else a packed copy.
func (t *Tensor) Contiguous() *Tensor {
	if t.IsContiguous() {
		return t
	}
	return t.Clone()
}

// Clone copies t into fresh contiguous storage.
func (t *Tensor) Clone() *Tensor {
	out := New(t.DType, t.Shape...)
	contig := t.IsContiguous()
	parallelElems(t.Numel(), func(lo, hi int) {
		switch {
		case t.S.F != nil && contig:
			copy(out.S.F[lo:hi], t.S.F[t.Offset+lo:t.Offset+hi])
		case t.S.F != nil:
			gather(out.S.F[lo:hi], t.S.F, t, lo)
		case contig:
			copy(out.S.I[lo:hi], t.S.I[t.Offset+lo:t.Offset+hi])
		default:
			gather(out.S.I[lo:hi], t.S.I, t, lo)
		}
	})
	return out
}

// To converts to another dtype (a copy, even when the dtype is the same).
func (t *Tensor) To(dt DType) *Tensor {
	if dt.IsFloat() {
		// SetFlat's Round(dt, Flat(i)) for every element.
		v, _ := loadF(t, nil, Float64)
		if dt != Float64 {
			parallelElems(len(v), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					v[i] = Round(dt, v[i])
				}
			})
		}
		return &Tensor{DType: dt, Shape: append([]int{}, t.Shape...), Strides: ContiguousStrides(t.Shape), S: &Storage{F: v}}
	}
	out := New(dt, t.Shape...)
	n := t.Numel()
	if t.DType.IsFloat() {
		for i := 0; i < n; i++ {
			out.SetFlat(i, t.Flat(i))
		}
	} else {
		for i := 0; i < n; i++ {
			out.SetFlatInt(i, t.FlatInt(i))
		}
	}
	return out
}

// CopyFrom writes src (broadcast to t's shape, converted to t's dtype) into t
// in place, through t's strides: the primitive behind in-place ops.
func (t *Tensor) CopyFrom(src *Tensor) error {
	b, err := src.BroadcastTo(t.Shape)
	if err != nil {
		return err
	}
	n := t.Numel()
	if b.S == t.S {
		b = b.Clone() // the source may overlap the destination
	}
	if t.DType.IsFloat() && t.S.F != nil && t.IsContiguous() {
		// SetFlat(i, b.Flat(i)) for every element, straight into t's storage.
		dst := t.S.F[t.Offset : t.Offset+n]
		parallelElems(n, func(lo, hi int) {
			seg := dst[lo:hi]
			if b.S.F != nil {
				gather(seg, b.S.F, b, lo)
			} else {
				gather(seg, b.S.I, b, lo)
			}
			if t.DType != Float64 {
				for i, v := range seg {
					seg[i] = Round(t.DType, v)
				}
			}
		})
		return nil
	}
	for i := 0; i < n; i++ {
		if t.DType.IsFloat() || b.DType.IsFloat() {
			t.SetFlat(i, b.Flat(i))
		} else {
			t.SetFlatInt(i, b.FlatInt(i))
		}
	}
	return nil
}

// BroadcastShapes is torch.broadcast_shapes.
func BroadcastShapes(shapes ...[]int) ([]int, error) {
	nd := 0
	for _, s := range shapes {
		if len(s) > nd {
			nd = len(s)
		}
	}
	out := make([]int, nd)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := nd - len(s)
		for i, d := range s {
			o := out[off+i]
			switch {
			case o == d || d == 1:
			case o == 1:
				out[off+i] = d
			default:
				return nil, fmt.Errorf("shapes %s are not broadcastable (dimension %d: %d vs %d)", fmtShapes(shapes), i-len(s), o, d)
			}
		}
	}
	return out, nil
}

func fmtShapes(shapes [][]int) string {
	parts := make([]string, len(shapes))
	for i, s := range shapes {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ", ")
}

// BroadcastTo is Tensor.expand to a broadcast-compatible shape: a view
// with zero strides on the broadcast dimensions.
func (t *Tensor) BroadcastTo(shape []int) (*Tensor, error) {
	if len(shape) < len(t.Shape) {
		return nil, fmt.Errorf("cannot broadcast shape %v to %v", t.Shape, shape)
	}
	off := len(shape) - len(t.Shape)
	st := make([]int, len(shape))
	for i := range shape {
		if i < off {
			st[i] = 0
			continue
		}
		d := t.Shape[i-off]
		switch {
		case d == shape[i]:
			st[i] = t.Strides[i-off]
		case d == 1:
			st[i] = 0
		default:
			return nil, fmt.Errorf("cannot broadcast shape %v to %v", t.Shape, shape)
		}
	}
	return t.View(append([]int{}, shape...), st, t.Offset), nil
}

// NormDim wraps a possibly negative dimension index, as PyTorch does.
func NormDim(d, ndim int) (int, error) {
	n := ndim
	if n == 0 {
		n = 1 // a 0-dim tensor accepts dim 0 and -1
	}
	if d < -n || d >= n {
		return 0, fmt.Errorf("dimension out of range (expected to be in range of [%d, %d], but got %d)", -n, n-1, d)
	}
	if d < 0 {
		d += n
	}
	return d, nil
}

// String prints a short summary (dtype, shape and the first values).
func (t *Tensor) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tensor(%s%v", t.DType.Short(), t.Shape)
	n := t.Numel()
	lim := n
	if lim > 6 {
		lim = 6
	}
	b.WriteString(" [")
	for i := 0; i < lim; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%g", t.Flat(i))
	}
	if n > lim {
		b.WriteString(", ...")
	}
	b.WriteString("])")
	return b.String()
}
