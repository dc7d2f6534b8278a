package tensor

import (
	"fmt"
	"math"
)

// Pointwise semantics beyond the core arithmetic: activations with
// parameters, elementwise math (fmod, lerp, addcmul, hypot, nan_to_num,
// round with decimals), the inverse trigonometric and hyperbolic functions,
// and the pointwise losses. Every value is computed in float64 and rounded
// once to the result dtype, as PyTorch's opmath does.

func init() {
	for k, f := range map[string]func(float64) float64{
		"asin": math.Asin, "acos": math.Acos, "atan": math.Atan,
		"sinh": math.Sinh, "cosh": math.Cosh, "asinh": math.Asinh, "acosh": math.Acosh, "atanh": math.Atanh,
		"log2": math.Log2, "log10": math.Log10, "erfinv": math.Erfinv,
	} {
		floatUnary[k] = f
	}
}

// MapFloat applies f elementwise to tensors broadcast together. The result
// dtype is the promoted dtype of the operands (Python numbers wrapped as
// PyNumber follow PyTorch's wrapped-number rule); integer results are
// refused with PyTorch's "not implemented for" message under kernel.
func MapFloat(kernel string, f func(v []float64) float64, ts ...*Tensor) (*Tensor, error) {
	if err := checkT(ts...); err != nil {
		return nil, err
	}
	ops := make([]Operand, len(ts))
	shapes := make([][]int, len(ts))
	for i, t := range ts {
		ops[i] = t.Operand()
		shapes[i] = t.Shape
	}
	dt := ResultType(ops...)
	if !dt.IsFloat() {
		return nil, notImpl(kernel, dt)
	}
	shape, err := bshape(shapes...)
	if err != nil {
		return nil, err
	}
	cols := make([][]float64, len(ts))
	for i, t := range ts {
		if cols[i], err = loadF(t, shape, dt); err != nil {
			return nil, err
		}
	}
	out := make([]float64, Numel(shape))
	args := make([]float64, len(ts))
	for k := range out {
		for i := range cols {
			args[i] = cols[i][k]
		}
		out[k] = f(args)
	}
	return fromF(dt, shape, out), nil
}

// Activation is one of the parameterised activation functions of
// torch.nn.functional; p holds its numeric parameters in schema order.
func Activation(op string, x *Tensor, p ...float64) (*Tensor, error) {
	arg := func(i int, def float64) float64 {
		if i < len(p) {
			return p[i]
		}
		return def
	}
	var f func(v float64) float64
	switch op {
	case "hardswish":
		f = func(v float64) float64 { return v * math.Min(math.Max(v+3, 0), 6) / 6 }
	case "hardsigmoid":
		f = func(v float64) float64 { return math.Min(math.Max(v+3, 0), 6) / 6 }
	case "mish":
		f = func(v float64) float64 { return v * math.Tanh(softplus(v, 1, 20)) }
	case "elu":
		alpha, scale, inScale := arg(0, 1), arg(1, 1), arg(2, 1)
		f = func(v float64) float64 {
			if v > 0 {
				return v * scale
			}
			return math.Expm1(v*inScale) * alpha * scale
		}
	case "selu":
		f = func(v float64) float64 {
			if v > 0 {
				return v * seluScale
			}
			return math.Expm1(v) * seluAlpha * seluScale
		}
	case "celu":
		alpha := arg(0, 1)
		if alpha == 0 {
			return nil, fmt.Errorf("ZeroDivisionError: celu alpha must not be 0")
		}
		f = func(v float64) float64 {
			if v > 0 {
				return v
			}
			return math.Expm1(v/alpha) * alpha
		}
	case "softplus":
		beta, th := arg(0, 1), arg(1, 20)
		f = func(v float64) float64 { return softplus(v, beta, th) }
	case "leaky_relu":
		s := arg(0, 0.01)
		f = func(v float64) float64 {
			if v > 0 {
				return v
			}
			return v * s
		}
	case "hardtanh":
		lo, hi := arg(0, -1), arg(1, 1)
		f = func(v float64) float64 {
			if v < lo {
				return lo
			}
			if v > hi {
				return hi
			}
			return v
		}
	case "log_sigmoid":
		f = func(v float64) float64 { return -softplus(-v, 1, math.Inf(1)) }
	case "softsign":
		f = func(v float64) float64 { return v / (1 + math.Abs(v)) }
	case "tanhshrink":
		f = func(v float64) float64 { return v - math.Tanh(v) }
	case "hardshrink", "softshrink":
		l := arg(0, 0.5)
		soft := op == "softshrink"
		f = func(v float64) float64 {
			switch {
			case v > l:
				if soft {
					return v - l
				}
				return v
			case v < -l:
				if soft {
					return v + l
				}
				return v
			}
			if math.IsNaN(v) && !soft {
				return v // hardshrink keeps NaN, softshrink gives 0
			}
			return 0
		}
	default:
		return nil, fmt.Errorf("unknown activation %q", op)
	}
	return nnUnary(op, x, f)
}

const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

// softplus is log(1 + exp(beta*x)) / beta, linear above the threshold.
func softplus(v, beta, threshold float64) float64 {
	if v*beta > threshold {
		return v
	}
	return math.Log1p(math.Exp(v*beta)) / beta
}

// Prelu is F.prelu(x, w): w has one value per channel (dim 1) or one in all.
func Prelu(x, w *Tensor) (*Tensor, error) {
	if err := nnNilCheck("prelu", x, w); err != nil {
		return nil, err
	}
	if err := nnFloatOnly("prelu_cpu", x, w); err != nil {
		return nil, err
	}
	n := w.Numel()
	ch := 1
	if x.Dim() >= 2 {
		ch = x.Shape[1]
	}
	if n != 1 && n != ch {
		return nil, fmt.Errorf("Mismatch of parameter numbers and input channel size. Found parameter numbers = %d and channel size = %d.", n, ch)
	}
	inner := 1
	for i := 2; i < x.Dim(); i++ {
		inner *= x.Shape[i]
	}
	xd, wd := nnData(x), nnData(w)
	out := make([]float64, len(xd))
	for i, v := range xd {
		a := wd[0]
		if n > 1 {
			a = wd[(i/inner)%ch]
		}
		if v > 0 {
			out[i] = v
		} else {
			out[i] = a * v
		}
	}
	return nnFromData(ResultType(x.Operand(), w.Operand()), append([]int{}, x.Shape...), out), nil
}

// Glu is F.glu(x, dim): the first half times sigmoid of the second.
func Glu(x *Tensor, dim int) (*Tensor, error) {
	if err := nnFloatOnly("glu", x); err != nil {
		return nil, err
	}
	if x.Dim() == 0 {
		return nil, fmt.Errorf("glu does not support scalars because halving size must be even")
	}
	d, err := NormDim(dim, x.Dim())
	if err != nil {
		return nil, err
	}
	if x.Shape[d]%2 != 0 {
		return nil, fmt.Errorf("Halving dimension must be even, but dimension %d is size %d", d, x.Shape[d])
	}
	h := x.Shape[d] / 2
	a, err := Narrow(x, d, 0, h)
	if err != nil {
		return nil, err
	}
	b, err := Narrow(x, d, h, h)
	if err != nil {
		return nil, err
	}
	return MapFloat("glu", func(v []float64) float64 { return v[0] / (1 + math.Exp(-v[1])) }, a, b)
}

// Fmod is torch.fmod: the remainder with the sign of the dividend (C fmod);
// for integers a truncating remainder, division by zero refused.
func Fmod(a, b *Tensor) (*Tensor, error) {
	if err := checkT(a, b); err != nil {
		return nil, err
	}
	dt := ResultType(a.Operand(), b.Operand())
	if dt.IsFloat() {
		return MapFloat("fmod", func(v []float64) float64 { return math.Mod(v[0], v[1]) }, a, b)
	}
	shape, err := broadcastAB(a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	x, _ := loadI(a, shape, dt)
	y, _ := loadI(b, shape, dt)
	out := make([]int64, len(x))
	for i := range x {
		if y[i] == 0 {
			return nil, fmt.Errorf("ZeroDivisionError")
		}
		out[i] = wrapInt(dt, x[i]%y[i])
	}
	return fromI(dt, shape, out), nil
}

// Lerp is torch.lerp(start, end, weight) with PyTorch's two-sided formula.
func Lerp(start, end, weight *Tensor) (*Tensor, error) {
	return MapFloat("lerp_kernel_scalar", func(v []float64) float64 {
		s, e, w := v[0], v[1], v[2]
		if math.Abs(w) < 0.5 {
			return s + w*(e-s)
		}
		return e - (e-s)*(1-w)
	}, start, end, weight)
}

// Addcmul is self + value * t1 * t2; Addcdiv is self + value * t1 / t2.
func Addcmul(self, t1, t2 *Tensor, value float64) (*Tensor, error) {
	return MapFloat("addcmul", func(v []float64) float64 { return v[0] + value*v[1]*v[2] }, self, t1, t2)
}

// Addcdiv is self + value * t1 / t2 (integer division is refused, as in PyTorch).
func Addcdiv(self, t1, t2 *Tensor, value float64) (*Tensor, error) {
	if t1 != nil && t2 != nil && !t1.DType.IsFloat() && !t2.DType.IsFloat() {
		return nil, fmt.Errorf("Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division of tensor1 and tensor2.")
	}
	return MapFloat("addcdiv", func(v []float64) float64 { return v[0] + value*v[1]/v[2] }, self, t1, t2)
}

// Hypot is sqrt(a² + b²) without overflow.
func Hypot(a, b *Tensor) (*Tensor, error) {
	return MapFloat("hypot", func(v []float64) float64 { return math.Hypot(v[0], v[1]) }, a, b)
}

// NanToNum replaces NaN, +inf and -inf; nil bounds mean the dtype's
// largest and lowest finite values.
func NanToNum(x *Tensor, nan float64, posinf, neginf *float64) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if !x.DType.IsFloat() {
		return x.Clone(), nil
	}
	hi, lo := FiniteMax(x.DType), -FiniteMax(x.DType)
	if posinf != nil {
		hi = *posinf
	}
	if neginf != nil {
		lo = *neginf
	}
	return nnUnary("nan_to_num", x, func(v float64) float64 {
		switch {
		case math.IsNaN(v):
			return nan
		case math.IsInf(v, 1):
			return hi
		case math.IsInf(v, -1):
			return lo
		}
		return v
	})
}

// FiniteMax is the largest finite value of a floating dtype.
func FiniteMax(dt DType) float64 {
	switch dt {
	case Float32:
		return math.MaxFloat32
	case Float16:
		return 65504
	case BFloat16:
		return 3.3895313892515355e38
	}
	return math.MaxFloat64
}

// RoundDecimals is torch.round(x, decimals=d): round half to even of
// x * 10^d, divided back (for negative d, x / 10^-d multiplied back).
func RoundDecimals(x *Tensor, decimals int) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	if !x.DType.IsFloat() {
		if decimals != 0 {
			return nil, fmt.Errorf("round_cpu not implemented for '%s' with decimals", torchName(x.DType))
		}
		return x.Clone(), nil
	}
	neg := decimals < 0
	p := math.Pow(10, math.Abs(float64(decimals)))
	dt := x.DType
	p = Round(dt, p)
	return nnUnary("round", x, func(v float64) float64 {
		if neg {
			return math.RoundToEven(Round(dt, v/p)) * p
		}
		return Round(dt, math.RoundToEven(Round(dt, v*p))/p)
	})
}

// IsInf marks ±infinity (false for integers).
func IsInf(x *Tensor) (*Tensor, error) {
	if err := checkT(x); err != nil {
		return nil, err
	}
	v, _ := loadF(x, nil, Float64)
	for i, a := range v {
		v[i] = b2f(math.IsInf(a, 0))
	}
	return fromF(Bool, x.Shape, v), nil
}

// PointwiseLoss is one of the elementwise losses (mse, l1, smooth_l1,
// huber, binary_cross_entropy, binary_cross_entropy_with_logits, kl_div,
// soft_margin) reduced by "none", "mean", "sum" (and kl_div's
// "batchmean"). weight (optional) multiplies the elementwise loss;
// posWeight is BCE-with-logits' positive-class weight; p its parameter
// (smooth_l1's beta, huber's delta, kl_div's log_target as 0/1).
func PointwiseLoss(op string, input, target, weight, posWeight *Tensor, reduction string, p float64) (*Tensor, error) {
	if err := nnNilCheck(op, input, target); err != nil {
		return nil, err
	}
	if reduction != "batchmean" || op != "kl_div" {
		if err := nnCheckReduction(reduction); err != nil {
			return nil, err
		}
	}
	if op != "kl_div" && !equalInts(input.Shape, target.Shape) {
		if op == "binary_cross_entropy" || op == "binary_cross_entropy_with_logits" {
			return nil, fmt.Errorf("Using a target size (%v) that is different to the input size (%v) is deprecated. Please ensure they have the same size.", target.Shape, input.Shape)
		}
	}
	var f func(v []float64) float64
	ts := []*Tensor{input, target}
	switch op {
	case "mse_loss":
		f = func(v []float64) float64 { d := v[0] - v[1]; return d * d }
	case "l1_loss":
		f = func(v []float64) float64 { return math.Abs(v[0] - v[1]) }
	case "smooth_l1_loss":
		if p < 0 {
			return nil, fmt.Errorf("smooth_l1_loss does not support negative values for beta.")
		}
		f = func(v []float64) float64 {
			d := math.Abs(v[0] - v[1])
			if d < p {
				return 0.5 * d * d / p
			}
			return d - 0.5*p
		}
	case "huber_loss":
		if p <= 0 {
			return nil, fmt.Errorf("huber_loss does not support non-positive values for delta.")
		}
		f = func(v []float64) float64 {
			d := math.Abs(v[0] - v[1])
			if d < p {
				return 0.5 * d * d
			}
			return p * (d - 0.5*p)
		}
	case "binary_cross_entropy":
		for _, x := range nnData(input) {
			if x < 0 || x > 1 {
				return nil, fmt.Errorf("all elements of input should be between 0 and 1")
			}
		}
		f = func(v []float64) float64 {
			x, t := v[0], v[1]
			return -(t*math.Max(math.Log(x), -100) + (1-t)*math.Max(math.Log(1-x), -100))
		}
	case "binary_cross_entropy_with_logits":
		if posWeight != nil {
			ts = append(ts, posWeight)
			f = func(v []float64) float64 {
				x, t, pw := v[0], v[1], v[2]
				mv := math.Max(-x, 0)
				lw := (pw-1)*t + 1
				return (1-t)*x + lw*(math.Log(math.Exp(-mv)+math.Exp(-x-mv))+mv)
			}
		} else {
			f = func(v []float64) float64 {
				x, t := v[0], v[1]
				mv := math.Max(-x, 0)
				return (1-t)*x + mv + math.Log(math.Exp(-mv)+math.Exp(-x-mv))
			}
		}
	case "kl_div":
		logTarget := p != 0
		f = func(v []float64) float64 {
			x, t := v[0], v[1]
			if logTarget {
				return math.Exp(t) * (t - x)
			}
			if t == 0 && !math.IsNaN(x) {
				return 0
			}
			return t*math.Log(t) - t*x
		}
	case "soft_margin_loss":
		f = func(v []float64) float64 { return math.Log1p(math.Exp(-v[0] * v[1])) }
	default:
		return nil, fmt.Errorf("unknown loss %q", op)
	}
	if err := nnFloatOnly(op, input); err != nil {
		return nil, err
	}
	l, err := MapFloat(op, f, ts...)
	if err != nil {
		return nil, err
	}
	if weight != nil {
		if l, err = MapFloat(op, func(v []float64) float64 { return v[0] * v[1] }, l, weight); err != nil {
			return nil, err
		}
	}
	data := nnData(l)
	switch reduction {
	case "none":
		return l, nil
	case "sum", "mean", "batchmean":
		s := 0.0
		for _, v := range data {
			s += v
		}
		switch reduction {
		case "mean":
			s /= float64(len(data))
		case "batchmean":
			if input.Dim() > 0 {
				s /= float64(input.Shape[0])
			}
		}
		return nnFromData(l.DType, nil, []float64{s}), nil
	}
	return nil, fmt.Errorf("%s is not a valid value for reduction", reduction)
}
