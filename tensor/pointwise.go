package tensor

import (
	"fmt"
	"math"
	"slices"
)

// positions returns the storage position of every element of t in
// row-major logical order (one allocation, no per-element division).
func positions(t *Tensor) []int {
	n := t.Numel()
	pos := make([]int, n)
	if n == 0 {
		return pos
	}
	if t.IsContiguous() {
		for i := range pos {
			pos[i] = t.Offset + i
		}
		return pos
	}
	nd := len(t.Shape)
	idx := make([]int, nd)
	p := t.Offset
	for i := 0; i < n; i++ {
		pos[i] = p
		for d := nd - 1; d >= 0; d-- {
			idx[d]++
			p += t.Strides[d]
			if idx[d] < t.Shape[d] {
				break
			}
			p -= idx[d] * t.Strides[d]
			idx[d] = 0
		}
	}
	return pos
}

// walk calls f(i, pos) for every element of t in row-major order, with an
// inner loop over the last dim (no allocation per element).
func walk(t *Tensor, f func(i, p int)) {
	n := t.Numel()
	if n == 0 {
		return
	}
	nd := len(t.Shape)
	if nd == 0 {
		f(0, t.Offset)
		return
	}
	inner, is := t.Shape[nd-1], t.Strides[nd-1]
	idx := make([]int, nd)
	p := t.Offset
	for i := 0; i < n; i += inner {
		q := p
		for j := 0; j < inner; j++ {
			f(i+j, q)
			q += is
		}
		for d := nd - 2; d >= 0; d-- {
			idx[d]++
			p += t.Strides[d]
			if idx[d] < t.Shape[d] {
				break
			}
			p -= idx[d] * t.Strides[d]
			idx[d] = 0
		}
	}
}

// loadF reads t (broadcast to shape when shape is non-nil) in row-major
// order as float64, each value rounded to dtype ct.
func loadF(t *Tensor, shape []int, ct DType) ([]float64, error) {
	if shape != nil {
		b, err := t.BroadcastTo(shape)
		if err != nil {
			return nil, err
		}
		t = b
	}
	n := t.Numel()
	out := make([]float64, n)
	contig := t.IsContiguous()
	round := ct != t.DType && ct != Float64
	parallelElems(n, func(lo, hi int) {
		seg := out[lo:hi]
		switch {
		case t.S.F != nil && contig:
			copy(seg, t.S.F[t.Offset+lo:t.Offset+hi])
		case t.S.F != nil:
			gather(seg, t.S.F, t, lo)
		default:
			gather(seg, t.S.I, t, lo)
		}
		if round {
			for i, v := range seg {
				seg[i] = Round(ct, v)
			}
		}
	})
	return out, nil
}

// loadI reads t (broadcast to shape when non-nil) as int64, wrapped to ct
// when ct is an integer dtype narrower than t's.
func loadI(t *Tensor, shape []int, ct DType) ([]int64, error) {
	if shape != nil {
		b, err := t.BroadcastTo(shape)
		if err != nil {
			return nil, err
		}
		t = b
	}
	n := t.Numel()
	out := make([]int64, n)
	contig := t.IsContiguous()
	wrap := ct != t.DType && ct != Int64
	parallelElems(n, func(lo, hi int) {
		seg := out[lo:hi]
		switch {
		case t.S.I != nil && contig:
			copy(seg, t.S.I[t.Offset+lo:t.Offset+hi])
		case t.S.I != nil:
			gather(seg, t.S.I, t, lo)
		default:
			gather(seg, t.S.F, t, lo)
		}
		if wrap {
			for i, v := range seg {
				seg[i] = wrapInt(ct, v)
			}
		}
	})
	return out, nil
}

func fromF(dt DType, shape []int, v []float64) *Tensor {
	t := &Tensor{DType: dt, Shape: append([]int{}, shape...), Strides: ContiguousStrides(shape), S: &Storage{}}
	if dt.IsFloat() {
		if dt != Float64 {
			parallelElems(len(v), func(lo, hi int) {
				seg := v[lo:hi]
				for i, x := range seg {
					seg[i] = Round(dt, x)
				}
			})
		}
		t.S.F = v
		return t
	}
	iv := make([]int64, len(v))
	parallelElems(len(v), func(lo, hi int) {
		for i, x := range v[lo:hi] {
			iv[lo+i] = int64(Round(dt, x))
		}
	})
	t.S.I = iv
	return t
}

func fromI(dt DType, shape []int, v []int64) *Tensor {
	t := &Tensor{DType: dt, Shape: append([]int{}, shape...), Strides: ContiguousStrides(shape), S: &Storage{}}
	if dt.IsFloat() {
		fv := make([]float64, len(v))
		for i, x := range v {
			fv[i] = Round(dt, float64(x))
		}
		t.S.F = fv
		return t
	}
	if dt != Int64 {
		for i, x := range v {
			v[i] = wrapInt(dt, x)
		}
	}
	t.S.I = v
	return t
}

func checkT(ts ...*Tensor) error {
	for _, t := range ts {
		if t == nil || t.S == nil {
			return fmt.Errorf("expected a Tensor but got None")
		}
		if t.DType == Invalid || int(t.DType) >= len(dtypeNames) {
			return fmt.Errorf("unsupported dtype %s", t.DType)
		}
		if len(t.Shape) != len(t.Strides) {
			return fmt.Errorf("malformed tensor: %d sizes, %d strides", len(t.Shape), len(t.Strides))
		}
		if err := checkSizes(t.Shape); err != nil {
			return err
		}
		n := 1
		lo, hi := t.Offset, t.Offset
		for i, d := range t.Shape {
			n *= d
			if d > 0 {
				if s := t.Strides[i]; s >= 0 {
					hi += (d - 1) * s
				} else {
					lo += (d - 1) * s
				}
			}
		}
		if n == 0 {
			continue
		}
		sl := len(t.S.F)
		if t.S.F == nil {
			sl = len(t.S.I)
		}
		if (t.DType.IsFloat() && t.S.F == nil) || (!t.DType.IsFloat() && t.S.I == nil) || lo < 0 || hi >= sl {
			return fmt.Errorf("malformed tensor: view %v strides %v offset %d out of its storage", t.Shape, t.Strides, t.Offset)
		}
	}
	return nil
}

// bshape broadcasts shapes and bounds the size of the result.
func bshape(shapes ...[]int) ([]int, error) {
	s, err := BroadcastShapes(shapes...)
	if err != nil {
		return nil, err
	}
	if err := checkSizes(s); err != nil {
		return nil, err
	}
	return s, nil
}

// broadcastAB is bshape for two operands, with PyTorch's message.
func broadcastAB(a, b []int) ([]int, error) {
	for i := 1; i <= min(len(a), len(b)); i++ {
		x, y := a[len(a)-i], b[len(b)-i]
		if x != y && x != 1 && y != 1 {
			return nil, fmt.Errorf("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d", x, y, max(len(a), len(b))-i)
		}
	}
	return bshape(a, b)
}

func torchName(dt DType) string {
	switch dt {
	case Bool:
		return "Bool"
	case Uint8:
		return "Byte"
	case Int8:
		return "Char"
	case Int32:
		return "Int"
	case Int64:
		return "Long"
	case Float16:
		return "Half"
	case BFloat16:
		return "BFloat16"
	case Float32:
		return "Float"
	case Float64:
		return "Double"
	}
	return dt.String()
}

func notImpl(kernel string, dt DType) error {
	return fmt.Errorf("\"%s\" not implemented for '%s'", kernel, torchName(dt))
}

var floatUnary = map[string]func(float64) float64{
	"exp":        math.Exp,
	"log":        math.Log,
	"log1p":      math.Log1p,
	"expm1":      math.Expm1,
	"sqrt":       math.Sqrt,
	"rsqrt":      func(x float64) float64 { return 1 / math.Sqrt(x) },
	"sin":        math.Sin,
	"cos":        math.Cos,
	"tan":        math.Tan,
	"tanh":       math.Tanh,
	"sigmoid":    func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
	"erf":        math.Erf,
	"reciprocal": func(x float64) float64 { return 1 / x },
	"gelu":       func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) },
	"gelu_tanh": func(x float64) float64 {
		return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	},
	"silu": func(x float64) float64 { return x / (1 + math.Exp(-x)) },
}

// Unary applies a pointwise op with PyTorch's dtype rules: floating ops on
// integer/bool inputs compute in float32; neg/abs/relu/square/sign keep the
// dtype; logical_not and isnan give bool.
func Unary(op string, x *Tensor) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	dt := x.DType
	if f, ok := floatUnary[op]; ok {
		ct := dt
		if !dt.IsFloat() {
			ct = Float32
		}
		if op == "gelu" || op == "gelu_tanh" || op == "silu" {
			if !dt.IsFloat() {
				return nil, notImpl(map[string]string{"gelu": "GeluKernelImpl", "gelu_tanh": "GeluKernelImpl", "silu": "silu"}[op], dt)
			}
		}
		v, err := loadF(x, nil, ct)
		if err != nil {
			return nil, err
		}
		parallelElems(len(v), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				v[i] = f(v[i])
			}
		})
		return fromF(ct, x.Shape, v), nil
	}
	switch op {
	case "logical_not":
		v, _ := loadF(x, nil, Float64)
		for i, a := range v {
			v[i] = b2f(a == 0)
		}
		return fromF(Bool, x.Shape, v), nil
	case "isnan":
		v, _ := loadF(x, nil, Float64)
		for i, a := range v {
			v[i] = b2f(math.IsNaN(a))
		}
		return fromF(Bool, x.Shape, v), nil
	case "bitwise_not":
		if dt.IsFloat() {
			return nil, notImpl("bitwise_not_cpu", dt)
		}
		v, _ := loadI(x, nil, dt)
		for i, a := range v {
			if dt == Bool {
				v[i] = 1 - a
			} else {
				v[i] = ^a
			}
		}
		return fromI(dt, x.Shape, v), nil
	case "neg", "abs", "relu", "square", "sign", "floor", "ceil", "round", "trunc":
	default:
		return nil, fmt.Errorf("unknown unary op %q", op)
	}
	if dt == Bool {
		switch op {
		case "neg":
			return nil, fmt.Errorf("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
		case "abs":
			return nil, notImpl("abs_cpu", dt)
		case "relu":
			return nil, notImpl("clamp_min_scalar_cpu", dt)
		case "square":
			v, _ := loadI(x, nil, Int64)
			return fromI(Int64, x.Shape, v), nil
		case "round":
			return nil, notImpl("round_cpu", dt)
		case "floor", "ceil", "trunc":
			return nil, notImpl(op+"_cpu", dt)
		}
		v, _ := loadI(x, nil, dt)
		return fromI(dt, x.Shape, v), nil
	}
	if !dt.IsFloat() {
		v, _ := loadI(x, nil, dt)
		for i, a := range v {
			switch op {
			case "neg":
				v[i] = -a
			case "abs":
				if a < 0 {
					v[i] = -a
				}
			case "relu":
				if a < 0 {
					v[i] = 0
				}
			case "square":
				v[i] = a * a
			case "sign":
				v[i] = sgnI(a)
			}
		}
		return fromI(dt, x.Shape, v), nil
	}
	v, _ := loadF(x, nil, dt)
	parallelElems(len(v), func(lo, hi int) { unaryF(op, v[lo:hi]) })
	return fromF(dt, x.Shape, v), nil
}

// unaryF is Unary's neg, abs, relu, square, sign, floor, ceil, round or
// trunc of floating values, in place.
func unaryF(op string, v []float64) {
	for i, a := range v {
		switch op {
		case "neg":
			v[i] = -a
		case "abs":
			v[i] = math.Abs(a)
		case "relu":
			if a < 0 {
				v[i] = 0
			}
		case "square":
			v[i] = a * a
		case "sign":
			v[i] = b2f(a > 0) - b2f(a < 0)
			if math.IsNaN(a) {
				v[i] = 0
			}
		case "floor":
			v[i] = math.Floor(a)
		case "ceil":
			v[i] = math.Ceil(a)
		case "round":
			v[i] = math.RoundToEven(a)
		case "trunc":
			v[i] = math.Trunc(a)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func sgnI(a int64) int64 {
	return b2i(a > 0) - b2i(a < 0)
}

func isCompare(op string) bool {
	switch op {
	case "eq", "ne", "lt", "le", "gt", "ge":
		return true
	}
	return false
}

// Binary applies a broadcasting pointwise op with torch.result_type promotion.
func Binary(op string, a, b *Tensor) (*Tensor, error) {
	return binaryOp(op, a, b, 1)
}

// AddScaled is torch.add(a, b, alpha=alpha).
func AddScaled(a, b *Tensor, alpha float64) (*Tensor, error) {
	return binaryOp("add", a, b, alpha)
}

// SubScaled is torch.sub(a, b, alpha=alpha).
func SubScaled(a, b *Tensor, alpha float64) (*Tensor, error) {
	return binaryOp("sub", a, b, alpha)
}

// sameLayoutArith is binaryOp's add, sub, mul or div (alpha 1) of two
// contiguous floating tensors of the result's shape and computation dtype
// (loadF would copy them unchanged): the result's values computed straight
// from both storages, without the two copies. nil for everything else.
func sameLayoutArith(op string, a, b *Tensor, shape []int, ct DType, alpha float64) []float64 {
	if op != "add" && op != "sub" && op != "mul" && op != "div" {
		return nil
	}
	if alpha != 1 || a.DType != ct || b.DType != ct || a.S.F == nil || b.S.F == nil ||
		!slices.Equal(a.Shape, shape) || !slices.Equal(b.Shape, shape) || !a.IsContiguous() || !b.IsContiguous() {
		return nil
	}
	n := Numel(shape)
	x, y := a.S.F[a.Offset:a.Offset+n], b.S.F[b.Offset:b.Offset+n]
	r := make([]float64, n)
	parallelElems(n, func(lo, hi int) {
		r, x, y := r[lo:hi], x[lo:hi], y[lo:hi]
		switch op {
		case "add":
			for i := range r {
				r[i] = x[i] + y[i]
			}
		case "sub":
			for i := range r {
				r[i] = x[i] - y[i]
			}
		case "mul":
			for i := range r {
				r[i] = x[i] * y[i]
			}
		case "div":
			for i := range r {
				r[i] = x[i] / y[i]
			}
		}
	})
	return r
}

func binaryOp(op string, a, b *Tensor, alpha float64) (*Tensor, error) {
	if err := checkT(a, b); err != nil {
		return nil, err
	}
	shape, err := broadcastAB(a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	ct := ResultType(a.Operand(), b.Operand())
	switch op {
	case "logical_and", "logical_or", "logical_xor":
		x, _ := loadF(a, shape, Float64)
		y, _ := loadF(b, shape, Float64)
		for i := range x {
			p, q := x[i] != 0, y[i] != 0
			switch op {
			case "logical_and":
				x[i] = b2f(p && q)
			case "logical_or":
				x[i] = b2f(p || q)
			default:
				x[i] = b2f(p != q)
			}
		}
		return fromF(Bool, shape, x), nil
	case "bitwise_and", "bitwise_or", "bitwise_xor":
		if ct.IsFloat() {
			return nil, notImpl(op+"_cpu", ct)
		}
		x, _ := loadI(a, shape, ct)
		y, _ := loadI(b, shape, ct)
		for i := range x {
			switch op {
			case "bitwise_and":
				x[i] &= y[i]
			case "bitwise_or":
				x[i] |= y[i]
			default:
				x[i] ^= y[i]
			}
		}
		return fromI(ct, shape, x), nil
	}
	if ct == Bool {
		switch op {
		case "sub":
			return nil, fmt.Errorf("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.")
		case "floor_divide":
			return nil, notImpl("div_floor_cpu", ct)
		case "remainder":
			return nil, notImpl("remainder_cpu", ct)
		case "pow":
			return nil, notImpl("pow", ct)
		}
	}
	if op == "sub" && (a.DType == Bool || b.DType == Bool) && ct != Bool {
		return nil, fmt.Errorf("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
	}
	if op == "div" || op == "atan2" {
		if !ct.IsFloat() {
			ct = Float32
		}
	}
	out := ct
	if isCompare(op) {
		out = Bool
	}
	if ct.IsFloat() {
		f, ok := floatBin[op]
		if !ok {
			return nil, fmt.Errorf("unknown binary op %q", op)
		}
		if x := sameLayoutArith(op, a, b, shape, ct, alpha); x != nil {
			return fromF(out, shape, x), nil
		}
		x, _ := loadF(a, shape, ct)
		y, _ := loadF(b, shape, ct)
		if op == "pow" && b.Wrapped && len(y) > 0 && (y[0] == 0.5 || y[0] == -0.5) {
			// PyTorch's pow by a Python scalar 0.5 / -0.5 is sqrt / 1/sqrt
			// (pow_tensor_scalar_optimized_kernel): NaN at -inf, -0 at -0,
			// where math.Pow gives +Inf and +0.
			if y[0] < 0 {
				f = func(p, _ float64) float64 { return 1 / math.Sqrt(p) }
			} else {
				f = func(p, _ float64) float64 { return math.Sqrt(p) }
			}
		}
		parallelElems(len(x), func(lo, hi int) {
			x, y := x[lo:hi], y[lo:hi]
			if alpha != 1 && (op == "add" || op == "sub") {
				al := Round(ct, alpha)
				for i, q := range y {
					y[i] = Round(ct, q*al)
				}
			}
			switch op { // the hot ones get their own loops
			case "add":
				for i, q := range y {
					x[i] += q
				}
			case "sub":
				for i, q := range y {
					x[i] -= q
				}
			case "mul":
				for i, q := range y {
					x[i] *= q
				}
			case "div":
				for i, q := range y {
					x[i] /= q
				}
			default:
				for i, q := range y {
					x[i] = f(x[i], q)
				}
			}
		})
		return fromF(out, shape, x), nil
	}
	f, ok := intBin[op]
	if !ok {
		return nil, fmt.Errorf("unknown binary op %q", op)
	}
	x, _ := loadI(a, shape, ct)
	y, _ := loadI(b, shape, ct)
	if op == "pow" && b.Wrapped {
		if len(y) > 0 && y[0] < 0 {
			return nil, fmt.Errorf("Integers to negative integer powers are not allowed.")
		}
	}
	if op == "add" || op == "sub" {
		ai := int64(alpha)
		if float64(ai) != alpha {
			return nil, fmt.Errorf("For integral input tensors, argument alpha must not be a floating point number.")
		}
		if ai != 1 {
			for i := range y {
				y[i] *= ai
			}
		}
	}
	if op == "floor_divide" || op == "remainder" {
		for _, q := range y {
			if q == 0 {
				return nil, fmt.Errorf("ZeroDivisionError")
			}
		}
	}
	for i, q := range y {
		x[i] = f(x[i], q)
	}
	if ct == Bool && !isCompare(op) {
		for i, r := range x {
			x[i] = b2i(r != 0)
		}
	}
	return fromI(out, shape, x), nil
}

var floatBin = map[string]func(p, q float64) float64{
	"add":          func(p, q float64) float64 { return p + q },
	"sub":          func(p, q float64) float64 { return p - q },
	"mul":          func(p, q float64) float64 { return p * q },
	"div":          func(p, q float64) float64 { return p / q },
	"floor_divide": floorDivF,
	"remainder":    remF,
	"pow":          math.Pow,
	"maximum":      math.Max,
	"minimum":      math.Min,
	"atan2":        math.Atan2,
	"eq":           func(p, q float64) float64 { return b2f(p == q) },
	"ne":           func(p, q float64) float64 { return b2f(p != q) },
	"lt":           func(p, q float64) float64 { return b2f(p < q) },
	"le":           func(p, q float64) float64 { return b2f(p <= q) },
	"gt":           func(p, q float64) float64 { return b2f(p > q) },
	"ge":           func(p, q float64) float64 { return b2f(p >= q) },
}

var intBin = map[string]func(p, q int64) int64{
	"add":          func(p, q int64) int64 { return p + q },
	"sub":          func(p, q int64) int64 { return p - q },
	"mul":          func(p, q int64) int64 { return p * q },
	"floor_divide": floorDivI,
	"remainder":    func(p, q int64) int64 { return p - floorDivI(p, q)*q },
	"pow":          powI,
	"maximum":      func(p, q int64) int64 { return max(p, q) },
	"minimum":      func(p, q int64) int64 { return min(p, q) },
	"eq":           func(p, q int64) int64 { return b2i(p == q) },
	"ne":           func(p, q int64) int64 { return b2i(p != q) },
	"lt":           func(p, q int64) int64 { return b2i(p < q) },
	"le":           func(p, q int64) int64 { return b2i(p <= q) },
	"gt":           func(p, q int64) int64 { return b2i(p > q) },
	"ge":           func(p, q int64) int64 { return b2i(p >= q) },
}

func floorDivI(p, q int64) int64 {
	if q == -1 {
		return -p // avoids the MinInt64 / -1 trap; wraps as C does
	}
	d := p / q
	if (p%q != 0) && ((p < 0) != (q < 0)) {
		d--
	}
	return d
}

func powI(b, e int64) int64 {
	if e < 0 {
		switch b {
		case 1:
			return 1
		case -1:
			if e%2 == 0 {
				return 1
			}
			return -1
		}
		return 0
	}
	r := int64(1)
	for e > 0 {
		if e&1 == 1 {
			r *= b
		}
		b *= b
		e >>= 1
	}
	return r
}

// floorDivF is PyTorch's div_floor for floating types (Python semantics).
func floorDivF(a, b float64) float64 {
	if b == 0 {
		return a / b
	}
	mod := math.Mod(a, b)
	div := (a - mod) / b
	if mod != 0 && (b < 0) != (mod < 0) {
		div -= 1
	}
	var fd float64
	if div != 0 {
		fd = math.Floor(div)
		if div-fd > 0.5 {
			fd += 1
		}
	} else {
		fd = math.Copysign(0, a/b)
	}
	return fd
}

func remF(a, b float64) float64 {
	m := math.Mod(a, b)
	if m != 0 && (b < 0) != (m < 0) {
		m += b
	}
	return m
}

// Where is torch.where(cond, a, b): broadcast all three, promote a and b.
func Where(cond, a, b *Tensor) (*Tensor, error) {
	if err := checkT(cond, a, b); err != nil {
		return nil, err
	}
	if cond.DType != Bool && cond.DType != Uint8 {
		return nil, fmt.Errorf("where expected condition to be a boolean tensor, but got a tensor with dtype %s", torchName(cond.DType))
	}
	shape, err := bshape(cond.Shape, a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	ct := ResultType(a.Operand(), b.Operand())
	c, _ := loadI(cond, shape, Int64)
	if ct.IsFloat() {
		x, _ := loadF(a, shape, ct)
		y, _ := loadF(b, shape, ct)
		parallelElems(len(x), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if c[i] == 0 {
					x[i] = y[i]
				}
			}
		})
		return fromF(ct, shape, x), nil
	}
	x, _ := loadI(a, shape, ct)
	y, _ := loadI(b, shape, ct)
	for i := range x {
		if c[i] == 0 {
			x[i] = y[i]
		}
	}
	return fromI(ct, shape, x), nil
}

// Clamp is torch.clamp(x, min, max); min or max may be nil (not both).
// Bounds may be tensors or wrapped Python numbers; NaN propagates.
func Clamp(x, lo, hi *Tensor) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if lo == nil && hi == nil {
		return nil, fmt.Errorf("torch.clamp: At least one of 'min' or 'max' must not be None")
	}
	ops := []Operand{x.Operand()}
	shapes := [][]int{x.Shape}
	for _, t := range []*Tensor{lo, hi} {
		if t != nil {
			if err := checkT(t); err != nil {
				return nil, err
			}
			ops = append(ops, t.Operand())
			shapes = append(shapes, t.Shape)
		}
	}
	ct := ResultType(ops...)
	if ct == Bool {
		return nil, notImpl("clamp_cpu", ct)
	}
	shape, err := bshape(shapes...)
	if err != nil {
		return nil, err
	}
	if ct.IsFloat() {
		v, _ := loadF(x, shape, ct)
		var l, h []float64
		if lo != nil {
			l, _ = loadF(lo, shape, ct)
		}
		if hi != nil {
			h, _ = loadF(hi, shape, ct)
		}
		parallelElems(len(v), func(lo, hi int) { clampF(v[lo:hi], part(l, lo, hi), part(h, lo, hi)) })
		return fromF(ct, shape, v), nil
	}
	v, _ := loadI(x, shape, ct)
	var l, h []int64
	if lo != nil {
		l, _ = loadI(lo, shape, ct)
	}
	if hi != nil {
		h, _ = loadI(hi, shape, ct)
	}
	for i, a := range v {
		if l != nil {
			a = max(a, l[i])
		}
		if h != nil {
			a = min(a, h[i])
		}
		v[i] = a
	}
	return fromI(ct, shape, v), nil
}

// part is s[lo:hi], nil for a nil s (an absent bound).
func part(s []float64, lo, hi int) []float64 {
	if s == nil {
		return nil
	}
	return s[lo:hi]
}

// clampF clamps v to the bounds l and h (either nil: none) in place; a NaN
// value stays, a NaN bound is the result.
func clampF(v, l, h []float64) {
	for i, a := range v {
		if math.IsNaN(a) {
			continue
		}
		if l != nil {
			if math.IsNaN(l[i]) {
				v[i] = l[i]
				continue
			}
			a = math.Max(a, l[i])
		}
		if h != nil {
			if math.IsNaN(h[i]) {
				v[i] = h[i]
				continue
			}
			a = math.Min(a, h[i])
		}
		v[i] = a
	}
}

// MaskedFill is torch.masked_fill(x, mask, value): value is a 0-dim tensor
// (or wrapped number); the result has x's dtype and the broadcast shape.
func MaskedFill(x, mask, value *Tensor) (*Tensor, error) {
	if err := checkT(x, mask, value); err != nil {
		return nil, err
	}
	if mask.DType != Bool {
		return nil, fmt.Errorf("masked_fill_ only supports boolean masks, but got mask with dtype %s", mask.DType)
	}
	if len(value.Shape) != 0 {
		return nil, fmt.Errorf("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", len(value.Shape))
	}
	shape, err := bshape(x.Shape, mask.Shape)
	if err != nil {
		return nil, err
	}
	m, _ := loadI(mask, shape, Int64)
	if x.DType.IsFloat() {
		v, _ := loadF(x, shape, x.DType)
		f := Round(x.DType, value.Item())
		for i := range v {
			if m[i] != 0 {
				v[i] = f
			}
		}
		return fromF(x.DType, shape, v), nil
	}
	if x.DType == Bool && value.DType.IsFloat() {
		// PyTorch converts the value with a checked cast; keep it simple.
	}
	v, _ := loadI(x, shape, x.DType)
	var f int64
	if value.DType.IsFloat() {
		f = int64(Round(x.DType, value.Item()))
	} else {
		f = wrapInt(x.DType, value.FlatInt(0))
	}
	for i := range v {
		if m[i] != 0 {
			v[i] = f
		}
	}
	return fromI(x.DType, shape, v), nil
}
