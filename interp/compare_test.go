package interp

import (
	"math"
	"testing"

	"gcdbg/tensor"
)

func f32(vals ...float64) *tensor.Tensor {
	return tensor.FromFloats(tensor.Float32, []int{len(vals)}, vals)
}

func TestCompareTolerance(t *testing.T) {
	tol := DefaultTolerance(tensor.Float32)
	// |1.0001 - 1| = 1e-4 <= 1e-5 + 1e-4*1: inside (allclose's boundary).
	if c := Compare(f32(1.00009), f32(1), tol); !c.Match {
		t.Errorf("within rtol should match: %+v", c)
	}
	if c := Compare(f32(1.0002), f32(1), tol); c.Match {
		t.Errorf("2e-4 relative error should not match: %+v", c)
	}
	// Near zero the absolute tolerance decides.
	if c := Compare(f32(5e-6), f32(0), tol); !c.Match || c.MaxAbsErr < 4e-6 {
		t.Errorf("5e-6 vs 0 should match by atol: %+v", c)
	}
	if c := Compare(f32(5e-5), f32(0), tol); c.Match {
		t.Errorf("5e-5 vs 0 should not match: %+v", c)
	}
}

func TestCompareNonFinite(t *testing.T) {
	tol := DefaultTolerance(tensor.Float32)
	nan, inf := math.NaN(), math.Inf(1)
	if c := Compare(f32(nan, inf, -inf), f32(nan, inf, -inf), tol); !c.Match || c.MaxAbsErr != 0 {
		t.Errorf("equal NaN/inf should match: %+v", c)
	}
	for _, pair := range [][2]float64{{nan, 1}, {1, nan}, {inf, -inf}, {inf, 1e30}} {
		if c := Compare(f32(pair[0]), f32(pair[1]), tol); c.Match {
			t.Errorf("%v vs %v matched", pair[0], pair[1])
		}
	}
}

func TestCompareShapeAndDType(t *testing.T) {
	tol := DefaultTolerance(tensor.Float32)
	if c := Compare(f32(1, 2), f32(1, 2, 3), tol); c.Match || c.Why == "" {
		t.Errorf("shape mismatch: %+v", c)
	}
	i := tensor.FromInts(tensor.Int64, []int{2}, []int64{1, 2})
	if c := Compare(i, f32(1, 2), tol); c.Match || c.Why == "" {
		t.Errorf("dtype mismatch: %+v", c)
	}
	if c := Compare(i, tensor.FromInts(tensor.Int64, []int{2}, []int64{1, 3}), DefaultTolerance(tensor.Int64)); c.Match {
		t.Errorf("ints compare exactly: %+v", c)
	}
}
