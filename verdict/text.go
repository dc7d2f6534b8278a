package verdict

import (
	"fmt"
	"math"
	"strings"
)

// The words every view uses for a judgement: the CLI, the TUI's run panel,
// watch mode, the report and bench print these and nothing of their own.

// Short is one judgement in a few words: "✓ rmse 1.2e-07 ≤ 6.8e-07" or
// "✗ rmse 3.1e-03 > 6.8e-07"; a mismatch names its failed checks first
// ("✗ reference ≠ PyTorch (rmse 0.31 > 0.0012) · rmse 0 ≤ 1.4"). nil is
// "—" (nothing was compared).
func (j *Judgement) Short() string {
	if j == nil {
		return "—"
	}
	mark := "✓"
	if !j.Match {
		mark = "✗"
	}
	if j.Reference == "exact" {
		if j.Match {
			return mark + " equal"
		}
		return fmt.Sprintf("%s max|Δ| %.3g", mark, j.MaxAbsErr)
	}
	if j.Multiplier == 0 {
		// Not judged numerically: a shape, dtype or missing value.
		return mark + " " + j.Why
	}
	// A mismatch leads with the checks that failed: a passing number first
	// would read as the reason (✗ rmse 0 ≤ 1.4 when the reference check
	// failed).
	parts := j.failedChecks()
	if j.RMSE <= j.Bound() {
		parts = append(parts, fmt.Sprintf("rmse %.2g ≤ %.2g", j.RMSE, j.Bound()))
	}
	s := mark + " " + strings.Join(parts, " · ")
	if j.NonFinite > 0 && j.NonFinite == j.Numel {
		s += " · every value NaN/Inf"
	}
	return s
}

// failedChecks are the numeric judgement's failed checks, in words with
// their numbers, most basic first; empty when it matches.
func (j *Judgement) failedChecks() []string {
	if j.Match {
		return nil
	}
	var out []string
	if strings.HasPrefix(j.Why, "dtype ") {
		out = append(out, strings.SplitN(j.Why, "; ", 2)[0])
	}
	if j.MaxAbsErr == math.MaxFloat64 {
		out = append(out, "NaN/Inf at other positions")
	}
	if !(j.RMSE <= j.Bound()) {
		out = append(out, fmt.Sprintf("rmse %.2g > %.2g", j.RMSE, j.Bound()))
	}
	if !(j.WorstErr <= j.WorstBound()) {
		out = append(out, fmt.Sprintf("worst %.2g > %.2g", j.WorstErr, j.WorstBound()))
	}
	if c := j.Check; c != nil && !c.Agree {
		if b := c.Multiplier*c.NoiseRMSE + c.Floor; !(c.RMSE <= b) {
			out = append(out, fmt.Sprintf("reference ≠ PyTorch (rmse %.2g > %.2g)", c.RMSE, b))
		} else {
			out = append(out, fmt.Sprintf("reference ≠ PyTorch (worst %.2g > %.2g)", c.WorstErr, c.Multiplier*c.NoiseWorstErr+c.WorstFloor))
		}
	}
	if len(out) == 0 && j.Why != "" {
		out = append(out, strings.SplitN(j.Why, "; ", 2)[0])
	}
	return out
}

// Bound is the largest rmse that matches.
func (j *Judgement) Bound() float64 { return j.Multiplier*j.BaselineRMSE + j.Floor }

// WorstBound is the largest worst-element error that matches.
func (j *Judgement) WorstBound() float64 { return j.Multiplier*j.BaselineWorstErr + j.Floor }

// Detail is the judgement with every number that decided it, one line.
func (j *Judgement) Detail() string {
	if j == nil {
		return "not compared"
	}
	var b strings.Builder
	if j.Match {
		b.WriteString("match")
	} else {
		b.WriteString("MISMATCH")
		if f := j.failedChecks(); len(f) > 0 && j.Multiplier != 0 {
			b.WriteString(" [failed: " + strings.Join(f, "; ") + "]")
		}
	}
	if j.Multiplier != 0 {
		fmt.Fprintf(&b, ": rmse %.3g vs bound %.3g (= %g × baseline %.3g + floor %.3g), worst element %.3g vs bound %.3g",
			j.RMSE, j.Bound(), j.Multiplier, j.BaselineRMSE, j.Floor, j.WorstErr, j.WorstBound())
	}
	if j.MaxAbsErr == math.MaxFloat64 {
		b.WriteString("; max abs err ∞ (NaN/Inf at other positions)")
	} else {
		fmt.Fprintf(&b, "; max abs err %.3g, max rel err %.3g", j.MaxAbsErr, j.MaxRelErr)
	}
	if j.NonFinite > 0 {
		fmt.Fprintf(&b, "; %d of %d values NaN/Inf in both", j.NonFinite, j.Numel)
		if j.NonFinite == j.Numel {
			b.WriteString(" (every value: nothing numeric was compared)")
		}
	}
	switch j.Reference {
	case "", "gcdbg eager float64", "exact":
	default:
		b.WriteString("; reference: " + j.Reference)
	}
	if j.Check != nil {
		rounding := j.Check.Rounding
		if rounding == "" { // a judgement read back from JSON
			rounding = "the run's"
		}
		fmt.Fprintf(&b, "; reference vs PyTorch rmse %.3g, %s rounding ≈ %.3g", j.Check.RMSE, rounding, j.Check.NoiseRMSE)
	}
	if !j.Match && j.Why != "" {
		fmt.Fprintf(&b, " — %s", j.Why)
	}
	if !j.Match && j.Worst != nil {
		b.WriteString("; worst " + j.Worst.String())
	}
	return b.String()
}

// String is "element [3 17]: got 1.25, expected 1.5 (float64 reference 1.5)".
func (e *Element) String() string {
	s := fmt.Sprintf("element %v: got %.9g, expected %.9g", e.Index, float64(e.Got), float64(e.Want))
	if e.Ref != nil {
		s += fmt.Sprintf(" (float64 reference %.9g)", float64(*e.Ref))
	}
	return s
}
