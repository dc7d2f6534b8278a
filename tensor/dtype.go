// Package tensor is gcdbg's eager tensor library: the numeric ground truth
// every compiled kernel is compared with. It favours clarity and exact
// PyTorch semantics (broadcasting, type promotion, strided views that alias)
// over speed; float32 values are computed in float64 and rounded to float32
// after every op, so results agree with PyTorch to within reassociation error.
package tensor

import "fmt"

// DType is a tensor element type, named as PyTorch names it.
type DType uint8

const (
	Invalid DType = iota
	Bool
	Uint8
	Int8
	Int32
	Int64
	Float16
	BFloat16
	Float32
	Float64
)

var dtypeNames = [...]string{"invalid", "bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64"}

// Short forms used in readable graphs: f32[8, 1024].
var dtypeShort = [...]string{"?", "b8", "u8", "i8", "i32", "i64", "f16", "bf16", "f32", "f64"}

func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", d)
}

// Short is the abbreviation PyTorch uses in print_readable annotations.
func (d DType) Short() string {
	if int(d) < len(dtypeShort) {
		return dtypeShort[d]
	}
	return "?"
}

// ParseDType accepts "float32" and "torch.float32" (and the short forms).
func ParseDType(s string) (DType, bool) {
	if len(s) > 6 && s[:6] == "torch." {
		s = s[6:]
	}
	switch s {
	case "float", "f32":
		return Float32, true
	case "double", "f64":
		return Float64, true
	case "half", "f16":
		return Float16, true
	case "long", "i64":
		return Int64, true
	case "int", "i32":
		return Int32, true
	case "b8":
		return Bool, true
	case "bf16":
		return BFloat16, true
	}
	for i, n := range dtypeNames {
		if i > 0 && n == s {
			return DType(i), true
		}
	}
	return Invalid, false
}

// Size is the element size in bytes.
func (d DType) Size() int {
	switch d {
	case Bool, Uint8, Int8:
		return 1
	case Float16, BFloat16:
		return 2
	case Int32, Float32:
		return 4
	case Int64, Float64:
		return 8
	}
	return 0
}

func (d DType) IsFloat() bool { return d == Float16 || d == BFloat16 || d == Float32 || d == Float64 }
func (d DType) IsInt() bool   { return d == Uint8 || d == Int8 || d == Int32 || d == Int64 }
func (d DType) IsBool() bool  { return d == Bool }

// category orders bool < integer < floating, as PyTorch's promotion does.
func (d DType) category() int {
	switch {
	case d == Bool:
		return 0
	case d.IsInt():
		return 1
	default:
		return 2
	}
}

// Promote is torch.promote_types for two tensor dtypes.
func Promote(a, b DType) DType {
	if a == b {
		return a
	}
	ca, cb := a.category(), b.category()
	if ca != cb {
		if ca > cb {
			return a
		}
		return b
	}
	if ca == 2 {
		// float16 with bfloat16 promotes to float32, as in PyTorch.
		if (a == Float16 && b == BFloat16) || (a == BFloat16 && b == Float16) {
			return Float32
		}
	}
	if ca == 1 && ((a == Uint8 && b == Int8) || (a == Int8 && b == Uint8)) {
		return Int16OrWider()
	}
	if a > b {
		return a
	}
	return b
}

// Int16OrWider: uint8 with int8 promotes to int16 in PyTorch; we have no
// int16, so the nearest wider type stands in.
func Int16OrWider() DType { return Int32 }

// ResultType is torch.result_type for the operands of a pointwise op.
// PyTorch ranks operands: dimensioned tensors > zero-dim tensors > Python
// scalars; a lower rank only changes the result when it is of a higher
// category (e.g. int tensor * 2.5 -> float32, the default float dtype).
type Operand struct {
	DType  DType
	ZeroD  bool // a 0-dim tensor
	Scalar bool // a Python number (DType is Bool, Int64 or Float64 by kind)
}

func ResultType(ops ...Operand) DType {
	var dims, zeros, scalars DType
	for _, o := range ops {
		switch {
		case o.Scalar:
			scalars = promoteOrSet(scalars, o.DType)
		case o.ZeroD:
			zeros = promoteOrSet(zeros, o.DType)
		default:
			dims = promoteOrSet(dims, o.DType)
		}
	}
	out := dims
	if zeros != Invalid {
		if out == Invalid || zeros.category() > out.category() {
			out = zeros
		}
	}
	if scalars != Invalid {
		if out == Invalid {
			// Only Python scalars: int stays int64, float becomes the default float32.
			if scalars.IsFloat() {
				return Float32
			}
			return scalars
		}
		if scalars.category() > out.category() {
			if scalars.IsFloat() {
				out = Float32
			} else {
				out = Int64
			}
		}
	}
	return out
}

func promoteOrSet(cur, d DType) DType {
	if cur == Invalid {
		return d
	}
	return Promote(cur, d)
}
