package verdict

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gcdbg/tensor"
)

// f32 rounds vals to float32 in a float32 tensor; f64 keeps them.
func f32(shape []int, vals []float64) *tensor.Tensor {
	return tensor.FromFloats(tensor.Float32, shape, vals)
}
func f64(shape []int, vals []float64) *tensor.Tensor {
	return tensor.FromFloats(tensor.Float64, shape, vals)
}

// noisy returns vals with a relative perturbation of about rel each.
func noisy(vals []float64, rel float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = v * (1 + rel*(2*r.Float64()-1))
	}
	return out
}

func truth(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]float64, n)
	for i := range out {
		out[i] = r.NormFloat64()
	}
	return out
}

func judge(r, b, f []float64, shape []int) Judgement {
	bt := f32(shape, b)
	return Judge(Input{Result: f32(shape, r), Against: bt, Ref64: f64(shape, f),
		Baselines: []Baseline{{Name: "PyTorch float32", T: bt}}, Independent: bt})
}

func TestRoundingLikeTheBaselineMatches(t *testing.T) {
	const n = 4096
	f := truth(n, 1)
	b := noisy(f, 1e-6, 2) // PyTorch's float32 rounding
	r := noisy(f, 1e-6, 3) // the compiled code's, different but as large
	j := judge(r, b, f, []int{n})
	if !j.Match {
		t.Fatalf("a result as accurate as PyTorch's must match: %s", j.Detail())
	}
	if j.Multiplier != 2 || j.RMSE == 0 || j.BaselineRMSE == 0 || j.Floor <= 0 {
		t.Errorf("the numbers that decided are missing: %+v", j)
	}
}

func TestSmallTensorsGetMultiplierThree(t *testing.T) {
	if Multiplier(tensor.Float32, 999) != 3 || Multiplier(tensor.Float32, 1000) != 2 || Multiplier(tensor.Float16, 1e6) != 3 {
		t.Error("multiplier: 3 under 1,000 elements and for half types, else 2")
	}
}

// Issue 14's false alarm: a gradient that is almost zero by cancellation.
// PyTorch's float32 value is rounding noise of 1e-6 while the compiled code
// is within 1e-12 of the float64 truth: allclose(rtol 1e-4, atol 1e-5)
// failed it; the accuracy rule must not.
func TestCancellationNoiseInPyTorchIsNoMismatch(t *testing.T) {
	const n = 2048
	f := make([]float64, n)
	r := make([]float64, n)
	b := make([]float64, n)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range f {
		f[i] = 1e-12 * rng.NormFloat64()
		r[i] = f[i] + 1e-14*rng.NormFloat64()
		b[i] = 2e-5 * rng.NormFloat64()
	}
	// The float64 run with simulated float32 rounding sees the same
	// cancellation (runner tests show it on a real softmax_sum trace).
	noise := make([]float64, n)
	for i := range noise {
		noise[i] = f[i] + 1e-5*rng.NormFloat64()
	}
	bt := f32([]int{n}, b)
	j := Judge(Input{Result: f32([]int{n}, r), Against: bt, Ref64: f64([]int{n}, f),
		Baselines: []Baseline{{Name: "PyTorch float32", T: bt}}, Independent: bt, Noise: f64([]int{n}, noise)})
	if !j.Match {
		t.Fatalf("the compiled result is closer to the truth than PyTorch: %s", j.Detail())
	}
	// allclose would have failed it: |r - b| reaches 8e-5 > 1e-5 + 1e-4|b|.
	if j.MaxAbsErr < 1e-5 {
		t.Fatalf("test premise: the fixed tolerance would have passed (max abs err %g)", j.MaxAbsErr)
	}
}

// The rule still catches a real error: a relative error of 1e-3 in one
// element of a 512-element output.
func TestOneWrongElementIsCaught(t *testing.T) {
	const n = 512
	f := truth(n, 4)
	b := noisy(f, 6e-8, 5)
	r := noisy(f, 6e-8, 6)
	r[137] *= 1 + 1e-3
	j := judge(r, b, f, []int{8, 64})
	if j.Match {
		t.Fatalf("a 1e-3 relative error in one element must not match: %s", j.Detail())
	}
	if j.Worst == nil || j.Worst.Index[0] != 2 || j.Worst.Index[1] != 9 {
		t.Errorf("the worst element is [2 9] (flat 137): %+v", j.Worst)
	}
	if !strings.Contains(j.Detail(), "element [2 9]") {
		t.Errorf("the message names the element: %s", j.Detail())
	}
}

// A semantics gcdbg's reference shares with its compiled code (a wrong
// derivative, PyTorch's zero padding row) makes R agree with F: only the
// reference check against PyTorch can see it.
func TestReferenceThatDisagreesWithPyTorchIsCaught(t *testing.T) {
	const n = 800
	f := truth(n, 8)
	b := noisy(f, 6e-8, 9)
	for i := 0; i < 16; i++ { // PyTorch zeroes one row; gcdbg does not
		b[i] = 0
	}
	r := noisy(f, 6e-8, 10)
	j := judge(r, b, f, []int{50, 16})
	if j.Match {
		t.Fatalf("gcdbg computing something else than PyTorch must not match: %s", j.Detail())
	}
	if j.Check == nil || j.Check.Agree || !strings.Contains(j.Why, "semantics differ") {
		t.Errorf("the reference check should say why: %+v", j)
	}
	// Without the reference check, the rule alone is fooled: B is far from
	// F, so anything close to F passes. That is why the check exists.
	bt := f32([]int{50, 16}, b)
	alone := Judge(Input{Result: f32([]int{50, 16}, r), Against: bt, Ref64: f64([]int{50, 16}, f),
		Baselines: []Baseline{{Name: "PyTorch float32", T: bt}}})
	if !alone.Match {
		t.Errorf("without the check the rule passes (documenting the hole the check closes): %s", alone.Detail())
	}
}

func TestNonFinitePositions(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	f := []float64{1, nan, inf, -inf, 2}
	same := judge([]float64{1, nan, inf, -inf, 2}, []float64{1, nan, inf, -inf, 2}, f, []int{5})
	if !same.Match {
		t.Fatalf("NaN and ±Inf at the same positions match: %s", same.Detail())
	}
	moved := judge([]float64{1, 3, inf, -inf, 2}, []float64{1, nan, inf, -inf, 2}, f, []int{5})
	if moved.Match || !strings.Contains(moved.Why, "NaN/Inf") || moved.Worst == nil || moved.Worst.Index[0] != 1 {
		t.Fatalf("a NaN the result lacks is a mismatch at element 1: %+v", moved)
	}
	sign := judge([]float64{1, nan, -inf, -inf, 2}, []float64{1, nan, inf, -inf, 2}, f, []int{5})
	if sign.Match {
		t.Fatal("-Inf for +Inf is a mismatch")
	}
	// float32 overflow where float64 does not: positions are judged against
	// the float32 values compared with, not against F.
	over := judge([]float64{inf, 1}, []float64{inf, 1}, []float64{1e39, 1}, []int{2})
	if !over.Match {
		t.Fatalf("float32 overflow as PyTorch overflows is no mismatch: %s", over.Detail())
	}
}

func TestIntegersMustBeEqual(t *testing.T) {
	a := tensor.FromInts(tensor.Int64, []int{3}, []int64{1, 2, 3})
	if j := Judge(Input{Result: a, Against: tensor.FromInts(tensor.Int64, []int{3}, []int64{1, 2, 3})}); !j.Match {
		t.Errorf("equal ints match: %s", j.Detail())
	}
	j := Judge(Input{Result: a, Against: tensor.FromInts(tensor.Int64, []int{3}, []int64{1, 2, 4})})
	if j.Match || j.Worst == nil || j.Worst.Index[0] != 2 {
		t.Errorf("ints that differ by 1 do not match, worst at 2: %+v", j)
	}
}

func TestShapeAndDTypeMismatch(t *testing.T) {
	x := f32([]int{2, 2}, []float64{1, 2, 3, 4})
	if j := Judge(Input{Result: x, Against: f32([]int{4}, []float64{1, 2, 3, 4})}); j.Match || !strings.Contains(j.Why, "shape") {
		t.Errorf("shape: %+v", j)
	}
	if j := Judge(Input{Result: x, Against: f64([]int{2, 2}, []float64{1, 2, 3, 4})}); j.Match || !strings.Contains(j.Why, "dtype") {
		t.Errorf("dtype: %+v", j)
	}
}

func TestAllZeroMatchesAllZero(t *testing.T) {
	z := make([]float64, 10)
	if j := judge(z, z, z, []int{10}); !j.Match {
		t.Errorf("zeros match zeros: %s", j.Detail())
	}
	tiny := make([]float64, 10)
	tiny[3] = 1e-6
	if j := judge(tiny, z, z, []int{10}); j.Match {
		t.Errorf("1e-6 where PyTorch and the truth are exactly 0 is a mismatch: %s", j.Detail())
	}
}

func TestWithoutFloat64ReferenceSaysSo(t *testing.T) {
	x := f32([]int{3}, []float64{1, 2, 3})
	j := Judge(Input{Result: x, Against: x, RefNote: "the float64 run failed: boom"})
	if !j.Match || !strings.Contains(j.Reference, "none in float64") || !strings.Contains(j.Reference, "boom") {
		t.Errorf("a degraded verdict says what it was judged against: %+v", j)
	}
}

func TestNumJSON(t *testing.T) {
	e := Element{Index: []int{1}, Got: Num(math.NaN()), Want: Num(math.Inf(-1))}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back Element
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(back.Got)) || !math.IsInf(float64(back.Want), -1) {
		t.Errorf("NaN/-Inf survive JSON: %s -> %+v", b, back)
	}
}

// A tensor that is NaN everywhere in both matches, and says that nothing
// numeric was compared; a NaN at another position never prints a sentinel.
func TestAllNaNSaysSo(t *testing.T) {
	nan := math.NaN()
	all := []float64{nan, nan, nan}
	j := judge(all, all, all, []int{3})
	if !j.Match || j.NonFinite != 3 || !strings.Contains(j.Detail(), "nothing numeric was compared") || !strings.Contains(j.Short(), "NaN") {
		t.Errorf("all-NaN: %s / %s", j.Short(), j.Detail())
	}
	moved := judge([]float64{1, 2, 3}, []float64{1, nan, 3}, []float64{1, nan, 3}, []int{3})
	if moved.Match || strings.Contains(moved.Detail(), "e+308") {
		t.Errorf("moved NaN: %s", moved.Detail())
	}
}

// The simulated run's distance (a model: u·√K per sum of K terms, float32
// accumulated in order) counts as a baseline only up to ModelCap times the
// float32 computations' own where PyTorch's value is there: on YOLO's first
// conv weight gradient (examples/review8 finding 7) it was 12× PyTorch's,
// and a 2·10⁻⁴ relative error injected into the compiled kernel matched.
// Without PyTorch's value the model is not capped.
func TestModelBaselineIsCappedByTheMeasuredOnes(t *testing.T) {
	const n = 8192
	shape := []int{n}
	f := truth(n, 11)
	// YOLO's sizes, relative to the gradient: PyTorch 1.1e-5, the
	// simulation 1.4e-4
	pt := f32(shape, noisy(f, 1e-5, 12))      // PyTorch's float32 rounding
	native := f32(shape, noisy(f, 1e-5, 13))  // gcdbg's eager float32
	model := f64(shape, noisy(f, 1.5e-4, 14)) // the simulation, 15× as large
	in := func(r []float64, withPyTorch bool) Input {
		var p *tensor.Tensor
		if withPyTorch {
			p = pt
		}
		return Input{Result: f32(shape, r), Against: native, Ref64: f64(shape, f), Baselines: Baselines(p, native, model)}
	}
	injected := noisy(f, 1e-5, 15)
	for i := range injected {
		injected[i] *= 1 + 2e-4
	}
	if j := Judge(in(injected, true)); j.Match {
		t.Errorf("a 2e-4 relative error must not hide behind the simulation's 1.5e-4: %s", j.Detail())
	}
	if j := Judge(in(noisy(f, 3e-5, 16), true)); !j.Match {
		t.Errorf("rounding 3× PyTorch's must match: %s", j.Detail())
	}
	// An error between the capped and the uncapped bound: it matches only
	// without PyTorch's value.
	if j := Judge(in(noisy(f, 1e-4, 17), false)); !j.Match {
		t.Errorf("without PyTorch's value the simulation bounds uncapped: %s", j.Detail())
	}
	if j := Judge(in(noisy(f, 1e-4, 17), true)); j.Match {
		t.Errorf("with PyTorch's value, an error 10× its rounding must not match: %s", j.Detail())
	}
}

// The check of F against PyTorch sizes float32's noise with the runs as
// they came (Raw: gcdbg's eager run with its own flipped comparisons),
// even where the bound uses that run less its flips: PyTorch's value flips
// such elements too, and where the search does not explain them all, a
// tightened noise called PyTorch's flips a difference of semantics
// (examples/unseen MobileNetV2: 10 gradients "reference ≠ PyTorch").
func TestRawRunSizesTheReferenceCheck(t *testing.T) {
	const n = 4096
	shape := []int{n}
	f := truth(n, 21)
	flip := append([]float64(nil), f...)
	flip[7] += 0.05 // a flipped mask element's effect
	pt := f32(shape, flip)
	native := f32(shape, noisy(f, 1e-7, 22))
	in := Input{Result: f32(shape, noisy(f, 1e-7, 23)), Against: pt, Ref64: f64(shape, f),
		Baselines: Baselines(pt, native, nil), Independent: pt}
	if j := Judge(in); j.Check == nil || j.Check.Agree {
		t.Fatalf("test premise: without a raw run PyTorch's flip fails the check: %+v", j.Check)
	}
	in.Raw = f32(shape, flip)
	if j := Judge(in); j.Check == nil || !j.Check.Agree || !j.Match {
		t.Errorf("a raw float32 run with the same flip must size the check: %s", j.Detail())
	}
}
