package tensor

import (
	"fmt"
	"math"
)

// Linspace is torch.linspace(start, end, steps, dtype=dt) as PyTorch 1.13's
// CPU kernel computes it (RangeFactoriesKernel.cpp, linspace_kernel; one
// thread: it splits only more than 32768 elements).
//
// start and end are converted to the dtype (an integer dtype refuses a value
// outside its range, as Scalar::to does); step is (end - start) / (steps - 1)
// in the dtype's arithmetic (double for the integer dtypes). Element i is
// start + step * i below halfway = steps / 2 and end - step * (steps - 1 - i)
// from there on, each operation rounded to the dtype (PyTorch is built with
// FMA contraction: the multiply-add is one rounding), an integer result
// truncated. The kernel writes whole pairs of Vectorized<T> (arangeVecBytes
// per vector): each vector's first element is that formula at its index i0,
// the others i0's value + k * step, so a vector that straddles halfway keeps
// the first form; the tail after the last pair is the scalar form.
func Linspace(start, end Number, steps int, dt DType) (*Tensor, error) {
	dt, s, e, t, err := rangeSetup("linspace", start, end, steps, dt)
	if err != nil {
		return nil, err
	}
	// steps 0 and 1 never reach the kernel (a Bool one too): empty, or
	// fill_(start)
	if steps == 0 {
		return t, nil
	}
	if steps == 1 {
		t.SetFlat(0, s)
		return t, nil
	}
	if dt == Bool {
		return nil, fmt.Errorf("\"linspace_cpu\" not implemented for 'Bool'")
	}
	// T arithmetic: every result rounded to the dtype (float16 and bfloat16
	// compute in float and round back, as c10::Half's operators do); the
	// integer dtypes compute in double, truncated only on the store.
	rt := func(v float64) float64 { return Round(dt, v) }
	if !dt.IsFloat() {
		rt = func(v float64) float64 { return v }
	}
	step := rt(rt(e-s) / float64(steps-1))
	halfway := steps / 2
	at := func(i int) float64 {
		if dt == Float16 || dt == BFloat16 { // c10::Half * int64_t: the count converted, every step rounded
			if i < halfway {
				return rt(s + rt(step*rt(float64(i))))
			}
			return rt(e - rt(step*rt(float64(steps-i-1))))
		}
		if i < halfway {
			return rt(math.FMA(step, float64(i), s))
		}
		return rt(math.FMA(-step, float64(steps-i-1), e))
	}
	v := arangeVecBytes / dt.Size()
	i := 0
	for ; i+2*v <= steps; i += 2 * v {
		for _, i0 := range []int{i, i + v} {
			b := at(i0)
			if !dt.IsFloat() {
				b = float64(FloatToInt(dt, b)) // Vectorized<T>::arange(T base, step)
			}
			for k := 0; k < v; k++ {
				t.SetFlat(i0+k, rt(b+rt(float64(k)*step)))
			}
		}
	}
	for ; i < steps; i++ {
		t.SetFlat(i, at(i))
	}
	return t, nil
}

// Logspace is torch.logspace(start, end, steps, base, dtype=dt) as PyTorch
// 1.13's CPU code computes it (RangeFactories.cpp, logspace_out: a scalar
// loop): step = double(end - start) / (steps - 1) with end - start in the
// dtype, element i = pow(base, start + step * i) below halfway and
// pow(base, end - step * (steps - i - 1)) from there on, in double, then
// converted to the dtype. float16 has no CPU kernel in 1.13. The pow is Go's
// math.Pow, as for the pow op: a few ulps from glibc's where the result is
// large (pow(10, 2.53125): 6 ulps), so a float64 logspace can differ from
// PyTorch's in its last bits; the narrower dtypes round the same.
func Logspace(start, end Number, steps int, base float64, dt DType) (*Tensor, error) {
	dt, s, e, t, err := rangeSetup("logspace", start, end, steps, dt)
	if err != nil {
		return nil, err
	}
	// steps 0 and 1 never reach the kernel: empty, or
	// fill_(pow(base, double(start)))
	if steps == 0 {
		return t, nil
	}
	if steps == 1 {
		t.SetFlat(0, math.Pow(base, start.V))
		return t, nil
	}
	switch dt {
	case Bool:
		return nil, fmt.Errorf("\"logspace_cpu\" not implemented for 'Bool'")
	case Float16:
		return nil, fmt.Errorf("\"logspace_cpu\" not implemented for 'Half'")
	}
	rt := func(v float64) float64 { return Round(dt, v) }
	if !dt.IsFloat() {
		rt = func(v float64) float64 { return float64(FloatToInt(Int64, v)) }
	}
	step := rt(e-s) / float64(steps-1)
	halfway := steps / 2
	for i := 0; i < steps; i++ {
		is := float64(i)
		if i < halfway {
			t.SetFlat(i, math.Pow(base, s+step*is))
		} else {
			// steps - is - 1 in the counter's type (a bfloat16 counter rounds)
			t.SetFlat(i, math.Pow(base, e-step*rt(rt(float64(steps)-is)-1)))
		}
	}
	return t, nil
}

// Eye is torch.eye(n, m, dtype=dt): ones on the diagonal. bfloat16 has no
// CPU kernel in PyTorch 1.13.
func Eye(n, m int, dt DType) (*Tensor, error) {
	if dt == Invalid {
		dt = Float32
	}
	if int(dt) >= len(dtypeNames) {
		return nil, fmt.Errorf("unsupported dtype %s", dt)
	}
	if n < 0 {
		return nil, fmt.Errorf("n must be greater or equal to 0, got %d", n)
	}
	if m < 0 {
		return nil, fmt.Errorf("m must be greater or equal to 0, got %d", m)
	}
	if dt == BFloat16 {
		return nil, fmt.Errorf("\"eye\" not implemented for 'BFloat16'")
	}
	if err := checkSizes([]int{n, m}); err != nil {
		return nil, err
	}
	t := New(dt, n, m)
	for i := 0; i < n && i < m; i++ {
		t.SetFlat(i*m+i, 1)
	}
	return t, nil
}

// Number is a Python number argument: Int for a Python int, which an
// unsigned dtype takes below 0 (uint8 takes -3 as 253, not -3.1).
type Number struct {
	V   float64
	Int bool
}

// rangeSetup is linspace's and logspace's common start: the dtype (default
// float32), the steps checked, start and end converted (scalarTo) and the
// result allocated.
func rangeSetup(op string, start, end Number, steps int, dt DType) (DType, float64, float64, *Tensor, error) {
	if dt == Invalid {
		dt = Float32
	}
	if int(dt) >= len(dtypeNames) {
		return dt, 0, 0, nil, fmt.Errorf("unsupported dtype %s", dt)
	}
	if steps < 0 {
		return dt, 0, 0, nil, fmt.Errorf("number of steps must be non-negative")
	}
	if steps > maxNumel {
		return dt, 0, 0, nil, fmt.Errorf("%s of %d elements is too large", op, steps)
	}
	s, err := scalarTo(dt, start)
	if err != nil {
		return dt, 0, 0, nil, err
	}
	e, err := scalarTo(dt, end)
	if err != nil {
		return dt, 0, 0, nil, err
	}
	return dt, s, e, New(dt, steps), nil
}

// scalarTo is Scalar::to<T> of a Python number: rounded to a floating
// dtype, truncated and wrapped to an integer one. A value the dtype cannot
// hold is refused as PyTorch's checked conversion refuses it: a float
// outside the integer range, an int above the maximum or (unsigned) below
// -maximum.
func scalarTo(dt DType, v Number) (float64, error) {
	f := v.V
	over := false
	switch {
	case dt == Bool: // bool(v): no range
		if f != 0 {
			return 1, nil
		}
		return 0, nil
	case dt == Float16:
		over = math.Abs(f) > 65504 && !math.IsInf(f, 0)
	case dt == BFloat16:
		over = math.Abs(f) > math.MaxFloat32 && !math.IsInf(f, 0)
	case dt.IsFloat():
	default:
		lo, hi := intRange(dt)
		if v.Int && lo == 0 {
			over = f > hi || f < -hi
		} else {
			over = math.IsNaN(f) || f < lo || f > hi
		}
	}
	if over {
		return 0, fmt.Errorf("value cannot be converted to type %s without overflow", cTypeName(dt))
	}
	if dt.IsFloat() {
		return Round(dt, f), nil
	}
	if v.Int {
		return float64(wrapInt(dt, int64(f))), nil
	}
	return float64(FloatToInt(dt, f)), nil
}

// intRange is an integer dtype's smallest and largest value.
func intRange(dt DType) (lo, hi float64) {
	switch dt {
	case Int32:
		return math.MinInt32, math.MaxInt32
	case Int8:
		return math.MinInt8, math.MaxInt8
	case Uint8:
		return 0, math.MaxUint8
	case Bool:
		return 0, 1
	}
	return -9223372036854775808.0, 9223372036854775807.0
}

// cTypeName is an integer dtype's C type as PyTorch's messages name it.
func cTypeName(dt DType) string {
	return map[DType]string{Int64: "int64_t", Int32: "int", Int8: "int8_t", Uint8: "uint8_t", Bool: "bool",
		Float16: "at::Half", BFloat16: "at::BFloat16"}[dt]
}
