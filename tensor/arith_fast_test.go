package tensor

import (
	"math"
	"testing"
)

// binaryOp's direct add/sub/mul/div of two contiguous tensors of the
// result's shape and dtype (sameLayoutArith) gives the values of the
// copying path, bit for bit, with NaN, ±Inf, -0 and float32 rounding:
// the copying path runs on transposed views of the same data.
func TestSameLayoutArithIsTheCopyingPath(t *testing.T) {
	vals := []float64{1.5, -0.0, math.Inf(1), math.Inf(-1), math.NaN(), 3e38, -2.5e-39, 7, 1e-300, -4}
	for _, dt := range []DType{Float64, Float32} {
		a := FromFloats(dt, []int{2, 5}, vals)
		rev := make([]float64, len(vals))
		for i := range vals {
			rev[i] = vals[len(vals)-1-i]
		}
		b := FromFloats(dt, []int{2, 5}, rev)
		// the same values, stored transposed: not contiguous
		tr := func(x *Tensor) *Tensor {
			c := New(dt, 5, 2)
			for i := 0; i < 2; i++ {
				for j := 0; j < 5; j++ {
					c.S.F[j*2+i] = x.S.F[i*5+j]
				}
			}
			return c.View([]int{2, 5}, []int{1, 2}, 0)
		}
		at, bt := tr(a), tr(b)
		for _, op := range []string{"add", "sub", "mul", "div"} {
			if sameLayoutArith(op, a, b, a.Shape, dt, 1) == nil || sameLayoutArith(op, at, bt, a.Shape, dt, 1) != nil {
				t.Fatalf("%s: premise: the direct path takes the contiguous pair only", op)
			}
			fast, err := binaryOp(op, a, b, 1)
			if err != nil {
				t.Fatal(err)
			}
			slow, err := binaryOp(op, at, bt, 1)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < fast.Numel(); i++ {
				f, s := fast.Flat(i), slow.Flat(i)
				if math.Float64bits(f) != math.Float64bits(s) && !(math.IsNaN(f) && math.IsNaN(s)) {
					t.Errorf("%v %s [%d]: %v, copying path %v", dt, op, i, f, s)
				}
			}
		}
	}
}
