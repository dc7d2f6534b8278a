package tensor

import (
	"fmt"
	"math"
)

// arangeVecBytes is the width of PyTorch's Vectorized<T> in the kernel the
// reference machine's PyTorch 1.13 dispatches to (its CPU capability:
// AVX2, 32 bytes; torch.__config__.show()).
const arangeVecBytes = 32

// Arange is torch.arange(start, end, step, dtype=dt) as PyTorch 1.13's CPU
// kernel computes it (RangeFactories.cpp, RangeFactoriesKernel.cpp).
//
// An integer dtype takes start, end and step as int64, truncated
// (Scalar::to<int64_t>); the size of an int64 result is
// (end - start + step - sign(step)) / step in int64 arithmetic, of the
// other dtypes ceil((end - start) / step) of the arguments as doubles;
// element i is start + step*i in int64, wrapped to the dtype.
//
// A floating dtype computes in its accumulate type (double for float32 and
// float64, float for float16 and bfloat16): element i is
// fma(step, i, start), except that the kernel writes whole pairs of
// Vectorized<T> (arangeVecBytes/elemsize elements each) from a base
// b = T(fma(step, i0, start)) as T(fma(k, step, b)) for k = 0..V-1; the
// tail after the last pair is the scalar form. (PyTorch is built with
// FMA contraction: the float64 results differ in the last bit without it.)
// One thread's layout: PyTorch splits only aranges of more than 32768
// elements across threads.
func Arange(start, end, step float64, dt DType) (*Tensor, error) {
	if dt == Invalid {
		dt = Float32
		if start == math.Trunc(start) && end == math.Trunc(end) && step == math.Trunc(step) {
			dt = Int64
		}
	}
	if int(dt) >= len(dtypeNames) {
		return nil, fmt.Errorf("unsupported dtype %s", dt)
	}
	if dt == Bool {
		return nil, fmt.Errorf("\"arange_cpu\" not implemented for 'Bool'")
	}
	for _, v := range []float64{start, end, step} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("unsupported range: %v -> %v", start, end)
		}
	}
	if !dt.IsFloat() {
		for _, v := range []float64{start, end, step} {
			if v < -9223372036854775808.0 || v >= 9223372036854775808.0 {
				return nil, fmt.Errorf("value cannot be converted to type int64_t without overflow: %v", v)
			}
		}
		xs, xe, xst := int64(start), int64(end), int64(step)
		if err := arangeChecks(float64(xs), float64(xe), float64(xst)); err != nil {
			return nil, err
		}
		var n float64
		if dt == Int64 {
			sgn := int64(1)
			if xst < 0 {
				sgn = -1
			}
			n = float64((xe - xs + xst - sgn) / xst)
		} else {
			n = math.Ceil((end - start) / step)
		}
		if n > maxNumel {
			return nil, fmt.Errorf("arange of %v elements is too large", n)
		}
		t := New(dt, int(n))
		for i := 0; i < int(n); i++ {
			t.SetFlatInt(i, xs+xst*int64(i))
		}
		return t, nil
	}
	acc := func(v float64) float64 { return v }
	if dt == Float16 || dt == BFloat16 {
		acc = func(v float64) float64 { return float64(float32(v)) }
	}
	xs, xe, xst := acc(start), acc(end), acc(step)
	if err := arangeChecks(xs, xe, xst); err != nil {
		return nil, err
	}
	n := math.Ceil((end - start) / step)
	if n > maxNumel {
		return nil, fmt.Errorf("arange of %v elements is too large", n)
	}
	t := New(dt, int(n))
	fma := func(a, b, c float64) float64 { return acc(math.FMA(a, b, c)) }
	v := arangeVecBytes / dt.Size()
	i := 0
	for ; i+2*v <= int(n); i += 2 * v {
		for _, i0 := range []int{i, i + v} {
			b := Round(dt, fma(xst, float64(i0), xs))
			for k := 0; k < v; k++ {
				t.SetFlat(i0+k, fma(float64(k), xst, b))
			}
		}
	}
	for ; i < int(n); i++ {
		t.SetFlat(i, fma(xst, float64(i), xs))
	}
	return t, nil
}

func arangeChecks(start, end, step float64) error {
	if step == 0 {
		return fmt.Errorf("step must be nonzero")
	}
	if (step > 0 && end < start) || (step < 0 && end > start) {
		return fmt.Errorf("upper bound and larger bound inconsistent with step sign")
	}
	return nil
}
