package ir

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// Pointwise ops: unary and binary math with broadcasting and PyTorch's type
// promotion, comparisons, where, clamp, masked_fill, and their in-place forms.

var unaryOps = []string{
	"neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
	"sigmoid", "relu", "erf", "reciprocal", "floor", "ceil", "round", "trunc", "sign",
	"logical_not", "bitwise_not", "isnan", "square", "silu",
}

var binaryOps = []string{
	"mul", "floor_divide", "remainder", "maximum", "minimum", "atan2",
	"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
	"bitwise_and", "bitwise_or", "bitwise_xor",
}

// Ops whose in-place form (name_) the canonical set carries.
var inplaceOps = []string{
	"add", "sub", "mul", "div", "neg", "relu", "sigmoid", "tanh", "exp", "sqrt", "clamp", "clamp_min",
	"clamp_max", "masked_fill", "pow", "abs", "floor_divide", "remainder", "silu",
}

func init() {
	for _, name := range unaryOps {
		op := name
		Register(op+"(self)", KindPointwise, func(a Args) (Value, error) {
			if r, ok, err := pyUnary(op, a.V[0]); ok {
				return r, err
			}
			x, err := a.Tensor(0)
			if err != nil {
				return nil, err
			}
			return tensor.Unary(op, x)
		})
	}
	for _, name := range binaryOps {
		op := name
		Register(op+"(self, other)", KindPointwise, func(a Args) (Value, error) {
			return binary(a, op, a.V[0], a.V[1])
		})
	}
	Register("add(self, other, alpha=1)", KindPointwise, func(a Args) (Value, error) {
		return addSub(a, "add")
	})
	Register("sub(self, other, alpha=1)", KindPointwise, func(a Args) (Value, error) {
		return addSub(a, "sub")
	})
	// rsub(self, other) = other - alpha*self (aten's spelling of `2 - x`).
	Register("rsub(self, other, alpha=1)", KindPointwise, func(a Args) (Value, error) {
		return addSub(Args{Op: a.Op, V: []Value{a.V[1], a.V[0], a.V[2]}}, "sub")
	})
	Register("div(self, other, rounding_mode=None)", KindPointwise, func(a Args) (Value, error) {
		switch a.V[2] {
		case nil:
			return binary(a, "div", a.V[0], a.V[1])
		case "floor":
			return binary(a, "floor_divide", a.V[0], a.V[1])
		case "trunc":
			q, err := binary(a, "div", a.V[0], a.V[1])
			if err != nil {
				return nil, err
			}
			if t, ok := q.(*tensor.Tensor); ok {
				r, err := tensor.Unary("trunc", t)
				if err != nil {
					return nil, err
				}
				x, _ := a.Tensor(0)
				y, _ := a.Tensor(1)
				return r.To(tensor.ResultType(x.Operand(), y.Operand())), nil
			}
			return math.Trunc(q.(float64)), nil
		}
		return nil, a.errf(2, "rounding_mode must be None, 'floor' or 'trunc'")
	})
	Register("pow(self, exponent)", KindPointwise, func(a Args) (Value, error) {
		return binary(a, "pow", a.V[0], a.V[1])
	})
	Register("gelu(self, approximate='none')", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		ap, err := a.Str(1)
		if err != nil {
			return nil, err
		}
		return tensor.Gelu(x, ap)
	})
	Register("where(condition, self, other)", KindPointwise, func(a Args) (Value, error) {
		c, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		x, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		y, err := a.Tensor(2)
		if err != nil {
			return nil, err
		}
		return tensor.Where(c, x, y)
	})
	Register("clamp(self, min=None, max=None)", KindPointwise, func(a Args) (Value, error) {
		return clamp(a, 1, 2)
	})
	Register("clamp_min(self, min)", KindPointwise, func(a Args) (Value, error) {
		return clamp(a, 1, -1)
	})
	Register("clamp_max(self, max)", KindPointwise, func(a Args) (Value, error) {
		return clamp(a, -1, 1)
	})
	Register("masked_fill(self, mask, value)", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		m, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		v, err := a.Tensor(2)
		if err != nil {
			return nil, err
		}
		return tensor.MaskedFill(x, m, v)
	})
	// copy_(self, src) and fill_(self, value) are in-place by nature.
	Register("copy_(self, src)", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		s, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		return x, x.CopyFrom(s)
	}).Inplace = true
	Register("fill_(self, value)", KindPointwise, func(a Args) (Value, error) {
		x, err := a.Tensor(0)
		if err != nil {
			return nil, err
		}
		s, err := a.Tensor(1)
		if err != nil {
			return nil, err
		}
		return x, x.CopyFrom(s)
	}).Inplace = true
	registerInplace(inplaceOps...) // inplace.go
}

func clamp(a Args, lo, hi int) (Value, error) {
	x, err := a.Tensor(0)
	if err != nil {
		return nil, err
	}
	var l, h *tensor.Tensor
	if lo >= 0 {
		if l, err = a.OptTensor(lo); err != nil {
			return nil, err
		}
	}
	if hi >= 0 {
		if h, err = a.OptTensor(hi); err != nil {
			return nil, err
		}
	}
	if l == nil && h == nil {
		return nil, fmt.Errorf("%s: at least one of 'min' or 'max' must not be None", a.Op.Name)
	}
	return tensor.Clamp(x, l, h)
}

func addSub(a Args, op string) (Value, error) {
	if r, ok, err := pySequence(op, a.V[0], a.V[1]); ok { // ops_pyseq.go: size tuples
		return r, err
	}
	alpha, err := a.Float(2)
	if err != nil {
		return nil, err
	}
	if isPyNumber(a.V[0]) && isPyNumber(a.V[1]) {
		// Size arithmetic on Python numbers: x ± alpha*y with Python's rules.
		other := a.V[1]
		if alpha != 1 {
			if other, err = binary(a, "mul", other, a.V[2]); err != nil {
				return nil, err
			}
		}
		return binary(a, op, a.V[0], other)
	}
	x, err := valueTensor(a, 0, a.V[0])
	if err != nil {
		return nil, err
	}
	y, err := valueTensor(a, 1, a.V[1])
	if err != nil {
		return nil, err
	}
	// The tensor library computes x ± alpha*y with one rounding and
	// PyTorch's rule that integral tensors take only an integral alpha.
	if op == "add" {
		return tensor.AddScaled(x, y, alpha)
	}
	return tensor.SubScaled(x, y, alpha)
}

// binary applies op to two values. Two Python numbers follow Python's own
// arithmetic (size arithmetic such as C // n_head in traced graphs).
func binary(a Args, op string, x, y Value) (Value, error) {
	if r, ok, err := pyBinary(op, x, y); ok {
		return r, err
	}
	if r, ok, err := pySequence(op, x, y); ok { // ops_pyseq.go: size tuples
		return r, err
	}
	xt, err := valueTensor(a, 0, x)
	if err != nil {
		return nil, err
	}
	yt, err := valueTensor(a, 1, y)
	if err != nil {
		return nil, err
	}
	return tensor.Binary(op, xt, yt)
}

func valueTensor(a Args, i int, v Value) (*tensor.Tensor, error) {
	switch x := v.(type) {
	case *tensor.Tensor:
		return x, nil
	case bool, int64, float64:
		return tensor.PyNumber(x), nil
	}
	return nil, a.errf(i, "expected a tensor or number, got %s", typeName(v))
}

func isPyNumber(v Value) bool {
	switch v.(type) {
	case bool, int64, float64:
		return true
	}
	return false
}

func pyUnary(op string, v Value) (Value, bool, error) {
	switch x := v.(type) {
	case int64:
		switch op {
		case "neg":
			return -x, true, nil
		case "abs":
			if x < 0 {
				return -x, true, nil
			}
			return x, true, nil
		}
	case float64:
		switch op {
		case "neg":
			return -x, true, nil
		case "abs":
			return math.Abs(x), true, nil
		case "sqrt":
			return math.Sqrt(x), true, nil
		}
	}
	return nil, false, nil
}

// pyBinary evaluates op on two Python numbers; ok is false when either is
// not a number.
func pyBinary(op string, x, y Value) (Value, bool, error) {
	if !isPyNumber(x) || !isPyNumber(y) {
		return nil, false, nil
	}
	xi, xInt := asPyInt(x)
	yi, yInt := asPyInt(y)
	if xInt && yInt {
		switch op {
		case "add":
			return xi + yi, true, nil
		case "sub":
			return xi - yi, true, nil
		case "mul":
			return xi * yi, true, nil
		case "floor_divide", "remainder":
			if yi == 0 {
				return nil, true, fmt.Errorf("integer division or modulo by zero")
			}
			q := xi / yi
			if (xi%yi != 0) && ((xi < 0) != (yi < 0)) {
				q--
			}
			if op == "floor_divide" {
				return q, true, nil
			}
			return xi - q*yi, true, nil
		case "div":
			if yi == 0 {
				return nil, true, fmt.Errorf("division by zero")
			}
			return float64(xi) / float64(yi), true, nil
		case "pow":
			if yi >= 0 {
				r := int64(1)
				for k := int64(0); k < yi; k++ {
					r *= xi
				}
				return r, true, nil
			}
			return math.Pow(float64(xi), float64(yi)), true, nil
		case "maximum":
			return max(xi, yi), true, nil
		case "minimum":
			return min(xi, yi), true, nil
		}
	}
	xf, yf := pyFloat(x), pyFloat(y)
	switch op {
	case "add":
		return xf + yf, true, nil
	case "sub":
		return xf - yf, true, nil
	case "mul":
		return xf * yf, true, nil
	case "div":
		if yf == 0 {
			return nil, true, fmt.Errorf("float division by zero")
		}
		return xf / yf, true, nil
	case "floor_divide":
		if yf == 0 {
			return nil, true, fmt.Errorf("float floor division by zero")
		}
		return math.Floor(xf / yf), true, nil
	case "remainder":
		if yf == 0 {
			return nil, true, fmt.Errorf("float modulo")
		}
		r := math.Mod(xf, yf)
		if r != 0 && (r < 0) != (yf < 0) {
			r += yf
		}
		return r, true, nil
	case "pow":
		return math.Pow(xf, yf), true, nil
	case "maximum":
		return math.Max(xf, yf), true, nil
	case "minimum":
		return math.Min(xf, yf), true, nil
	case "eq":
		return xf == yf, true, nil
	case "ne":
		return xf != yf, true, nil
	case "lt":
		return xf < yf, true, nil
	case "le":
		return xf <= yf, true, nil
	case "gt":
		return xf > yf, true, nil
	case "ge":
		return xf >= yf, true, nil
	}
	return nil, false, nil
}

func asPyInt(v Value) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func pyFloat(v Value) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
	}
	return 0
}
