package interp

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// Compare and Tolerance are allclose, for the unit tests of single
// transformations (a decomposition against the op it replaces). Verdicts
// on a run's results — outputs, grads, buffers — are package verdict's
// accuracy rule and nothing else.

// Tolerance is an allclose tolerance: |got - want| <= Atol + Rtol*|want|.
type Tolerance struct {
	Rtol float64 `json:"rtol"`
	Atol float64 `json:"atol"`
}

// DefaultTolerance is what gcdbg uses for a dtype: float32 rtol 1e-4 /
// atol 1e-5 (reassociation in reductions and GEMMs), float64 1e-7/1e-9,
// half types 1e-2/1e-3, integers and bools exact.
func DefaultTolerance(dt tensor.DType) Tolerance {
	switch dt {
	case tensor.Float32:
		return Tolerance{1e-4, 1e-5}
	case tensor.Float64:
		return Tolerance{1e-7, 1e-9}
	case tensor.Float16, tensor.BFloat16:
		return Tolerance{1e-2, 1e-3}
	}
	return Tolerance{0, 0}
}

// Comparison is the verdict on one tensor against a reference.
type Comparison struct {
	MaxAbsErr float64 `json:"max_abs_err"`
	MaxRelErr float64 `json:"max_rel_err"`
	Match     bool    `json:"match"`
	// Why explains a mismatch that is not about values (shape, dtype).
	Why string `json:"why,omitempty"`
}

// Compare checks got against want. NaNs match NaNs and infinities match
// the same infinity, as torch.allclose(equal_nan=True) does.
func Compare(got, want *tensor.Tensor, tol Tolerance) Comparison {
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		return Comparison{MaxAbsErr: math.MaxFloat64, MaxRelErr: math.MaxFloat64, Why: fmt.Sprintf("shape %v, expected %v", got.Shape, want.Shape)}
	}
	c := Comparison{Match: true}
	if got.DType != want.DType {
		c.Match = false
		c.Why = fmt.Sprintf("dtype %s, expected %s", got.DType, want.DType)
	}
	n := got.Numel()
	for i := 0; i < n; i++ {
		g, w := got.Flat(i), want.Flat(i)
		if math.IsNaN(g) || math.IsNaN(w) {
			if math.IsNaN(g) != math.IsNaN(w) {
				c.Match = false
				c.MaxAbsErr, c.MaxRelErr = math.Inf(1), math.Inf(1)
			}
			continue
		}
		if math.IsInf(g, 0) || math.IsInf(w, 0) {
			if g != w {
				c.Match = false
				c.MaxAbsErr, c.MaxRelErr = math.Inf(1), math.Inf(1)
			}
			continue
		}
		d := math.Abs(g - w)
		if d > c.MaxAbsErr {
			c.MaxAbsErr = d
		}
		if w != 0 {
			if r := d / math.Abs(w); r > c.MaxRelErr {
				c.MaxRelErr = r
			}
		}
		if d > tol.Atol+tol.Rtol*math.Abs(w) {
			c.Match = false
		}
	}
	// JSON has no infinity: a NaN/inf mismatch reads as the largest float.
	if math.IsInf(c.MaxAbsErr, 0) {
		c.MaxAbsErr, c.MaxRelErr = math.MaxFloat64, math.MaxFloat64
	}
	return c
}
