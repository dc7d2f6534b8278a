package runner

import (
	"math"
	"testing"
)

// t5_bucket_bias (runner/testdata/models/t5_bucket_bias.py, exported from
// PyTorch 1.13): T5's relative position bucket truncates
// log(|j - i| / 8) / log(16) * 8 to an integer, and that value is 2.0 or
// 4.0 at |j - i| = 16, 32. The simulated float32 run perturbed it to
// 1.9999999 and picked the embedding row of bucket 9 instead of 10, so its
// distance from F (the baseline) was of the size of the loss itself (39
// on a loss of rms ~1e1; the loss bound 117) and any error passed.
func TestIntegerTruncationDoesNotInflateTheBaseline(t *testing.T) {
	_, units := loadUnits(t, "testdata/t5_bucket_bias.json")
	u := units[0]
	refs, err := newReferences(u)
	if err != nil {
		t.Fatal(err)
	}
	checks := []what{{kind: "output", index: 0}, gradNamed(t, u, "bias.weight")}
	for _, w := range checks {
		f, nz, pt := w.pick(refs.f64), w.pick(refs.noise), refs.expected(w)
		if f == nil || nz == nil || pt == nil {
			t.Fatalf("%s %d: test premise: F, the simulated run and PyTorch's value", w.kind, w.index)
		}
		scale := rmsOf(f)
		if d := rmsDiff(pt, f); d > 1e-5*scale {
			t.Fatalf("%s %d: test premise: F agrees with PyTorch's float32 buckets (rmse %g, rms %g)", w.kind, w.index, d, scale)
		}
		// float32 rounding of a sum of 4,096 terms: far below 1e-4 of the value.
		if d := rmsDiff(nz, f); d > 1e-4*scale || d == 0 {
			t.Errorf("%s %d: simulated float32 rounding is %g from F (rms %g): want rounding noise, not a flipped bucket", w.kind, w.index, d, scale)
		}
		// An error of 1e-3 of the value is a MISMATCH against PyTorch and eager.
		got := w.pick(refs.native).Clone()
		if e, n := refs.judge(w, got); !e.Match || !n.Match {
			t.Fatalf("%s %d: gcdbg's own eager value must match: %s / %s", w.kind, w.index, e.Detail(), n.Detail())
		}
		got.SetFlat(0, got.Flat(0)+1e-3*scale)
		if e, n := refs.judge(w, got); e.Match || n.Match {
			t.Errorf("%s %d: an error of %g must not match: %s / %s", w.kind, w.index, 1e-3*scale, e.Detail(), n.Detail())
		}
	}
}

func rmsDiff(a, b interface {
	Numel() int
	Flat(int) float64
}) float64 {
	var s float64
	for i := 0; i < a.Numel(); i++ {
		d := a.Flat(i) - b.Flat(i)
		s += d * d
	}
	return math.Sqrt(s / float64(max(1, a.Numel())))
}
