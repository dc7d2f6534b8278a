package interp

import (
	"math"
	"testing"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// noisyCall runs one op under Float64Noise as the interpreter does.
func noisyCall(t *testing.T, op string, args ...ir.Value) *tensor.Tensor {
	t.Helper()
	d := ir.Lookup(op)
	out, err := ir.Call(d, args)
	if err != nil {
		t.Fatal(err)
	}
	p := newPrecision(Options{Precision: Float64Noise, Seed: NoiseSeed})
	r, err := AsTensor(p.result(d, args, out))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A sum whose terms cancel (zero in exact arithmetic, as the gradient of a
// bias feeding a softmax) gets simulated float32 noise of the size of its
// terms — u·√K·‖terms‖₂, uniform ξ: rms 1/√3 of that — not of its ~0
// result; a sum that does not cancel keeps the relative perturbation
// u·√K·|result|; a maximum, which float32 computes exactly, is left exact.
func TestFloat64NoiseOfCancellingSums(t *testing.T) {
	const rows, k = 64, 4096
	vals := make([]float64, rows*k)
	pos := make([]float64, rows*k)
	for i := range vals {
		j := i % k // every row holds the same terms
		a := 1e-3 * (1 + float64(j%97)/97)
		if j%2 == 1 {
			a = 1e-3 * (1 + float64((j-1)%97)/97)
			vals[i] = -a // pairs ±a: each row sums to 0 exactly
		} else {
			vals[i] = a
		}
		pos[i] = a
	}
	x := tensor.FromFloats(tensor.Float64, []int{rows, k}, vals)
	norm := 0.0
	for _, v := range vals[:k] {
		norm += v * v
	}
	norm = math.Sqrt(norm) // every row has the same terms' norm
	scale := unitRoundoff * math.Sqrt(k) * norm
	s := noisyCall(t, "aten.sum", x, ir.Tuple{int64(1)}, false, nil)
	var ss, worst float64
	for i := 0; i < rows; i++ {
		v := s.Flat(i)
		ss += v * v
		worst = math.Max(worst, math.Abs(v))
	}
	if r := math.Sqrt(ss / rows); r < 0.3*scale || worst > scale {
		t.Errorf("cancelling sum: noise rms %g, worst %g; want about %g/√3, at most %g", r, worst, scale, scale)
	}
	xp := tensor.FromFloats(tensor.Float64, []int{rows, k}, pos)
	sp := noisyCall(t, "aten.sum", xp, ir.Tuple{int64(1)}, false, nil)
	exact := 0.0
	for _, v := range pos[:k] {
		exact += v
	}
	for i := 0; i < rows; i++ {
		if rel := math.Abs(sp.Flat(i)/exact - 1); rel > unitRoundoff*math.Sqrt(k) || rel == 0 {
			t.Errorf("same-sign sum row %d: relative perturbation %g, want (0, %g]", i, rel, unitRoundoff*math.Sqrt(k))
		}
	}
	m := noisyCall(t, "aten.amax", xp, ir.Tuple{int64(1)}, true)
	for i := 0; i < rows; i++ {
		if v := m.Flat(i); v != 1e-3*(1+96.0/97) {
			t.Errorf("amax row %d perturbed: %g", i, v)
		}
	}
}
