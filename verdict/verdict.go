// Package verdict is gcdbg's one accuracy rule (shared spec run-json.md):
// every output, gradient and buffer gcdbg compares — in `run`, `--json`,
// the TUI's run panel, watch mode, the report and bench — is judged here
// and nowhere else.
//
// The rule is the one torch._dynamo.utils.same applies with an fp64
// reference. F is gcdbg's eager interpreter in float64; a result R matches
// when
//
//	rmse(R, F) <= multiplier * baseline_rmse + floor
//
// and the same holds for the worst element (max |R - F| against the
// baseline's worst), where baseline_rmse is how far a plain float32 computation of the same
// graph is from F (PyTorch's recorded float32 result, gcdbg's eager run in
// the graph's own dtype, and gcdbg's float64 run with simulated float32
// rounding: the largest of those given), multiplier is 2 (3 for half types
// and for tensors under 1,000 elements), and floor is 1e-5 * rms(F) plus a
// tiny absolute term. NaN and ±Inf must sit where the compared values have
// them; integers and bools must be equal.
//
// A verdict against F alone cannot see a bug that F shares with R — a wrong
// derivative formula or a wrong eager semantics makes both wrong alike.
// When an independent result exists (PyTorch's), the reference itself is
// checked: PyTorch's distance from F must be explained by float32 rounding,
// which is estimated by running the graph in float64 with a random
// perturbation of float32's unit roundoff after every op (Monte Carlo
// arithmetic, scaled by √K for a K-term sum and relative to the terms'
// 2-norm where they cancel: interp.Float64Noise). A
// disagreement far beyond that fails the verdict and says so.
package verdict

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gcdbg/tensor"
)

// Num is a float64 that survives JSON when it is NaN or infinite (written
// as the strings "NaN", "Infinity", "-Infinity").
type Num float64

// MarshalJSON writes finite values as numbers, the others as strings.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (n *Num) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch s {
		case "NaN":
			*n = Num(math.NaN())
		case "Infinity":
			*n = Num(math.Inf(1))
		case "-Infinity":
			*n = Num(math.Inf(-1))
		default:
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return err
			}
			*n = Num(f)
		}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = Num(f)
	return nil
}

// Element is one element of a compared tensor: the worst one.
type Element struct {
	Index []int `json:"index"`
	Got   Num   `json:"got"`
	Want  Num   `json:"want"`
	// Ref is the float64 reference's value there (absent when there is none).
	Ref *Num `json:"ref,omitempty"`
}

// RefCheck is the check of the float64 reference against an independent
// result (PyTorch's): is their distance explained by float32 rounding?
type RefCheck struct {
	RMSE      float64 `json:"rmse"`       // rmse(PyTorch, F)
	NoiseRMSE float64 `json:"noise_rmse"` // float32 rounding's estimated size
	// Rounding names the dtype whose rounding NoiseRMSE sizes (the
	// independent result's: float16, bfloat16, float32 or float64), for
	// the text; the JSON keeps run-json.md's fields.
	Rounding string `json:"-"`
	// WorstErr is max |PyTorch - F|, NoiseWorstErr rounding's worst element.
	WorstErr      float64 `json:"worst_err"`
	NoiseWorstErr float64 `json:"noise_worst_err"`
	// WorstFloor is 1e-4 of F's largest magnitude: PyTorch's kernels may
	// round one element worse than the simulation of gcdbg's formulas says.
	WorstFloor float64 `json:"worst_floor"`
	Multiplier float64 `json:"multiplier"`
	Floor      float64 `json:"floor"`
	Agree      bool    `json:"agree"`
}

// Judgement is the verdict on one tensor, with the numbers that decided it.
type Judgement struct {
	// MaxAbsErr and MaxRelErr are against the compared values (PyTorch's
	// for vs_expected, gcdbg's eager result for vs_eager).
	MaxAbsErr float64 `json:"max_abs_err"`
	MaxRelErr float64 `json:"max_rel_err"`
	// RMSE is rmse(result, F); BaselineRMSE is the float32 baseline's.
	RMSE         float64 `json:"rmse"`
	BaselineRMSE float64 `json:"baseline_rmse"`
	// WorstErr is max |result - F| over the elements; BaselineWorstErr the
	// baseline's. The rule holds for the worst element as for the rmse, so
	// one wrong element of a large tensor is not averaged away.
	WorstErr         float64 `json:"worst_err"`
	BaselineWorstErr float64 `json:"baseline_worst_err"`
	Multiplier       float64 `json:"multiplier"`
	Floor            float64 `json:"floor"`
	// Baseline names what BaselineRMSE measured; Reference what F is.
	Baseline  string `json:"baseline,omitempty"`
	Reference string `json:"reference,omitempty"`
	Match     bool   `json:"match"`
	// Why explains a mismatch in words (shape, dtype, NaN positions, the
	// reference disagreeing with PyTorch, or the numbers).
	Why   string   `json:"why,omitempty"`
	Worst *Element `json:"worst,omitempty"`
	// Numel is the number of elements; NonFinite how many are NaN or ±Inf
	// in both the result and the values compared with (same positions).
	Numel     int       `json:"numel"`
	NonFinite int       `json:"non_finite,omitempty"`
	Check     *RefCheck `json:"reference_check,omitempty"`
}

// Baseline is one plain float32 computation of the same values.
type Baseline struct {
	Name string
	T    *tensor.Tensor
	// Model marks the simulated run: a model of float32 rounding, not a
	// float32 computation (ModelCap).
	Model bool
	// Measured marks PyTorch's own float32 result: with it, the model is
	// capped by the float32 computations' distances.
	Measured bool
}

// ModelCap bounds the simulated run's distance from F, as a baseline, at
// this many times the largest distance of the float32 computations
// (PyTorch's, gcdbg's eager run) where the trace has PyTorch's value. The simulation rounds every sum of K terms by u·√K,
// float32 accumulated in order; oneDNN's and BLAS's blocked sums err far
// less, and on a detector's first conv weight gradient (65,536 terms per
// element: examples/review8 finding 7, YOLO seed 1) the simulated
// distance was 12× PyTorch's and 15× the compiled kernels': a bound of
// 2.95e-5 on a gradient of rms 0.1, which a 2·10⁻⁴ relative error
// injected into the compiled kernel passed. With the cap the bound is at
// most 2 × 4 = 8× the float32 runs' error (plus the floor) wherever the
// model is the largest baseline; where their own rounding is the larger,
// it rules as before. Not PyTorch's alone: a bias gradient that cancels
// to 0 (group_instance_norm) came out of PyTorch 6·10⁻¹⁰ from F, of
// gcdbg's eager and compiled float32 runs 4·10⁻⁸ and 1.2·10⁻⁷.
const ModelCap = 4

// Baselines are the float32 computations baseline_rmse is the largest
// distance of: PyTorch's recorded result, gcdbg's eager run in the graph's
// dtype and gcdbg's float64 run with simulated float32 rounding; nil ones
// are left out.
func Baselines(pytorch, native, noise *tensor.Tensor) []Baseline {
	var bs []Baseline
	if pytorch != nil {
		bs = append(bs, Baseline{Name: "PyTorch float32", T: pytorch, Measured: true})
	}
	if native != nil {
		bs = append(bs, Baseline{Name: "gcdbg eager " + native.DType.String(), T: native})
	}
	if noise != nil {
		bs = append(bs, Baseline{Name: "simulated float32 rounding", T: noise, Model: true})
	}
	return bs
}

// Input is what one judgement compares.
type Input struct {
	// Result is R, what is judged.
	Result *tensor.Tensor
	// Against is what max_abs_err/max_rel_err, the worst element and the
	// NaN/Inf positions are measured against: PyTorch's values for
	// vs_expected, gcdbg's eager result in the graph's dtype for vs_eager.
	Against *tensor.Tensor
	// Ref64 is F, the float64 reference. Nil degrades the verdict to one
	// against Against (said in Reference as RefNote).
	Ref64   *tensor.Tensor
	RefNote string
	// Baselines are plain float32 computations; baseline_rmse is the
	// largest of their distances from F.
	Baselines []Baseline
	// Independent, when non-nil, is a result computed without gcdbg's
	// semantics (PyTorch's): F is checked against it. Noise is the float64
	// run with simulated float32 rounding used to size that check.
	Independent *tensor.Tensor
	Noise       *tensor.Tensor
	// Raw, when non-nil, is a float32 run as it came, with the
	// comparisons it decided the other way from F, where a baseline is
	// that run less their effect: the check of F against PyTorch counts
	// it in float32's noise (PyTorch's value flips such elements too, and
	// not every flip of its is explained), the bounds do not.
	Raw *tensor.Tensor
}

// Multiplier per dtype and size, as run-json.md says.
func Multiplier(dt tensor.DType, numel int) float64 {
	if dt == tensor.Float16 || dt == tensor.BFloat16 || numel < 1000 {
		return 3
	}
	return 2
}

// RefMultiplier is how far beyond the simulated float32 rounding PyTorch's
// own float32 result may sit from F before gcdbg's reference is called
// wrong. PyTorch's kernels use other formulas and summation orders; where
// a sum cancels (a gradient that is zero in exact arithmetic) their error
// exceeds the simulation of gcdbg's own formulas by up to 40× in the cases
// measured (softmax backward over 8,192-wide rows: 40×; the gradient of a
// conv bias feeding a training-mode BatchNorm: 14×), while a real
// difference in semantics sits 10^5× and more above it (Embedding's
// padding row: 2.7·10^6×; a relu derivative scaled by 1.5: see the tests).
const RefMultiplier = 100

// relFloor and absFloor make the floor: 1e-5 * rms(F) + absFloor.
// refFloor is the reference check's relative floor: that check looks for
// semantics that differ from PyTorch's (a wrong derivative, a padding row
// PyTorch leaves at zero), whose errors are orders of magnitude above
// rounding; PyTorch's float32 kernels may round a little worse than the
// simulation of gcdbg's own formulas estimates.
const (
	relFloor = 1e-5
	refFloor = 1e-4
	absFloor = 1e-12
)

// Judge compares in.Result under the accuracy rule.
func Judge(in Input) Judgement {
	r, a := in.Result, in.Against
	j := Judgement{Match: true}
	if r == nil || a == nil {
		return Judgement{Why: "no tensor to compare"}
	}
	if !slices.Equal(r.Shape, a.Shape) {
		return Judgement{MaxAbsErr: math.MaxFloat64, MaxRelErr: math.MaxFloat64,
			Why: fmt.Sprintf("shape %v, expected %v", r.Shape, a.Shape)}
	}
	if r.DType != a.DType {
		j.Match = false
		j.Why = fmt.Sprintf("dtype %s, expected %s", r.DType, a.DType)
	}
	n := r.Numel()
	j.Numel = n
	// Elementwise against Against: max errors, the worst element, NaN/Inf.
	worst, worstD := -1, -1.0
	nonFinite := -1
	for i := 0; i < n; i++ {
		g, w := r.Flat(i), a.Flat(i)
		if !finite(g) || !finite(w) {
			if sameNonFinite(g, w) {
				j.NonFinite++
			} else {
				if nonFinite < 0 {
					nonFinite = i
				}
				j.MaxAbsErr, j.MaxRelErr = math.MaxFloat64, math.MaxFloat64
			}
			continue
		}
		d := math.Abs(g - w)
		if d > j.MaxAbsErr {
			j.MaxAbsErr = d
		}
		if w != 0 {
			if rel := d / math.Abs(w); rel > j.MaxRelErr {
				j.MaxRelErr = rel
			}
		}
		if d > worstD {
			worst, worstD = i, d
		}
	}
	if j.MaxAbsErr == math.MaxFloat64 {
		j.MaxRelErr = math.MaxFloat64
	}
	pick := worst
	if nonFinite >= 0 {
		pick = nonFinite
	}
	if pick >= 0 && (worstD > 0 || nonFinite >= 0) {
		e := &Element{Index: unravel(pick, r.Shape), Got: Num(r.Flat(pick)), Want: Num(a.Flat(pick))}
		if in.Ref64 != nil && slices.Equal(in.Ref64.Shape, r.Shape) {
			v := Num(in.Ref64.Flat(pick))
			e.Ref = &v
		}
		j.Worst = e
	}
	if nonFinite >= 0 {
		j.Match = false
		j.Why = joinWhy(j.Why, fmt.Sprintf("NaN/Inf at other positions: element %v is %s, expected %s",
			unravel(nonFinite, r.Shape), fmtNum(r.Flat(nonFinite)), fmtNum(a.Flat(nonFinite))))
	}
	if !r.DType.IsFloat() || !a.DType.IsFloat() {
		// Integers and bools must be equal.
		j.Reference = "exact"
		if j.MaxAbsErr != 0 {
			j.Match = false
			j.Why = joinWhy(j.Why, fmt.Sprintf("integer values differ (max abs err %g)", j.MaxAbsErr))
		}
		return j
	}
	f := in.Ref64
	j.Reference = "gcdbg eager float64"
	if f == nil || !slices.Equal(f.Shape, r.Shape) {
		f = a
		j.Reference = "none in float64"
		if in.RefNote != "" {
			j.Reference += ": " + in.RefNote
		}
		j.Reference += "; judged against " + "the compared values themselves"
	}
	j.Multiplier = Multiplier(r.DType, n)
	rmsF := rms(f, r, a)
	j.Floor = relFloor*rmsF + absFloor
	j.RMSE = rmse(r, f, r, a)
	j.WorstErr = maxErr(r, f, r, a)
	var names []string
	var modelRMSE, modelWorst float64
	measured := false
	for _, b := range in.Baselines {
		if b.T == nil || !slices.Equal(b.T.Shape, r.Shape) {
			continue
		}
		e, w := rmse(b.T, f, r, a), maxErr(b.T, f, r, a)
		names = append(names, b.Name)
		if b.Model {
			modelRMSE, modelWorst = math.Max(modelRMSE, e), math.Max(modelWorst, w)
			continue
		}
		measured = measured || b.Measured
		j.BaselineRMSE = math.Max(j.BaselineRMSE, e)
		j.BaselineWorstErr = math.Max(j.BaselineWorstErr, w)
	}
	if measured {
		modelRMSE, modelWorst = math.Min(modelRMSE, ModelCap*j.BaselineRMSE), math.Min(modelWorst, ModelCap*j.BaselineWorstErr)
	}
	j.BaselineRMSE = math.Max(j.BaselineRMSE, modelRMSE)
	j.BaselineWorstErr = math.Max(j.BaselineWorstErr, modelWorst)
	j.Baseline = strings.Join(names, ", ")
	if !(j.RMSE <= j.Multiplier*j.BaselineRMSE+j.Floor) {
		j.Match = false
		j.Why = joinWhy(j.Why, fmt.Sprintf("rmse %.3g vs the float64 reference exceeds %g × baseline %.3g + floor %.3g",
			j.RMSE, j.Multiplier, j.BaselineRMSE, j.Floor))
	}
	if !(j.WorstErr <= j.Multiplier*j.BaselineWorstErr+j.Floor) {
		j.Match = false
		j.Why = joinWhy(j.Why, fmt.Sprintf("worst element error %.3g vs the float64 reference exceeds %g × the baseline's worst %.3g + floor %.3g",
			j.WorstErr, j.Multiplier, j.BaselineWorstErr, j.Floor))
	}
	if in.Independent != nil && in.Ref64 != nil && slices.Equal(in.Independent.Shape, r.Shape) && in.Independent.DType.IsFloat() {
		rc := &RefCheck{Multiplier: RefMultiplier, Floor: refFloor*rmsF + absFloor, Rounding: in.Independent.DType.String()}
		rc.RMSE = rmse(in.Independent, f, r, a)
		rc.WorstErr = maxErr(in.Independent, f, r, a)
		rc.NoiseRMSE, rc.NoiseWorstErr = j.RMSE, j.WorstErr
		noise := []*tensor.Tensor{in.Noise, in.Raw}
		for _, b := range in.Baselines {
			if b.T != in.Independent {
				noise = append(noise, b.T)
			}
		}
		for _, x := range noise {
			if x != nil && slices.Equal(x.Shape, r.Shape) {
				rc.NoiseRMSE = math.Max(rc.NoiseRMSE, rmse(x, f, r, a))
				rc.NoiseWorstErr = math.Max(rc.NoiseWorstErr, maxErr(x, f, r, a))
			}
		}
		rc.WorstFloor = refFloor*maxAbs(f, r, a) + absFloor
		rc.Agree = rc.RMSE <= rc.Multiplier*rc.NoiseRMSE+rc.Floor &&
			rc.WorstErr <= rc.Multiplier*rc.NoiseWorstErr+rc.WorstFloor
		j.Check = rc
		if !rc.Agree {
			j.Match = false
			j.Why = joinWhy(j.Why, fmt.Sprintf("gcdbg's float64 reference is %.3g (rmse; worst element %.3g) from PyTorch's result, far beyond %s rounding (%.3g; worst %.3g): gcdbg's semantics differ from PyTorch's here (eager interpreter, decomposition or derivative), or PyTorch's recorded value is not what this graph computes",
				rc.RMSE, rc.WorstErr, rc.Rounding, rc.NoiseRMSE, rc.NoiseWorstErr))
		}
	}
	return j
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func sameNonFinite(g, w float64) bool {
	if math.IsNaN(g) || math.IsNaN(w) {
		return math.IsNaN(g) && math.IsNaN(w)
	}
	return g == w
}

// rmse is the root-mean-square difference of x and f over the elements
// where x, f and every mask tensor are finite.
func rmse(x, f *tensor.Tensor, masks ...*tensor.Tensor) float64 {
	n := x.Numel()
	var s float64
	var k int
	for i := 0; i < n; i++ {
		xv, fv := x.Flat(i), f.Flat(i)
		if !finite(xv) || !finite(fv) || !allFinite(i, masks) {
			continue
		}
		d := xv - fv
		s += d * d
		k++
	}
	if k == 0 {
		return 0
	}
	return math.Sqrt(s / float64(k))
}

// maxErr is max |x - f| over the same elements as rmse.
func maxErr(x, f *tensor.Tensor, masks ...*tensor.Tensor) float64 {
	n := x.Numel()
	var m float64
	for i := 0; i < n; i++ {
		xv, fv := x.Flat(i), f.Flat(i)
		if !finite(xv) || !finite(fv) || !allFinite(i, masks) {
			continue
		}
		m = math.Max(m, math.Abs(xv-fv))
	}
	return m
}

// maxAbs is max |f| over the same elements.
func maxAbs(f *tensor.Tensor, masks ...*tensor.Tensor) float64 {
	var m float64
	for i := 0; i < f.Numel(); i++ {
		if v := f.Flat(i); finite(v) && allFinite(i, masks) {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}

// rms is the root-mean-square of f over the same elements.
func rms(f *tensor.Tensor, masks ...*tensor.Tensor) float64 {
	n := f.Numel()
	var s float64
	var k int
	for i := 0; i < n; i++ {
		v := f.Flat(i)
		if !finite(v) || !allFinite(i, masks) {
			continue
		}
		s += v * v
		k++
	}
	if k == 0 {
		return 0
	}
	return math.Sqrt(s / float64(k))
}

func allFinite(i int, ts []*tensor.Tensor) bool {
	for _, t := range ts {
		if t != nil && !finite(t.Flat(i)) {
			return false
		}
	}
	return true
}

func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = i % shape[d]
			i /= shape[d]
		}
	}
	return idx
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', 9, 64) }

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
