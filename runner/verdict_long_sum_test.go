package runner

import "testing"

// bias_long_sum (runner/testdata/models/bias_long_sum.py, exported from
// PyTorch 1.13): PyTorch's gradient of a conv bias summed over 8 x 8000
// positions is 7e-6 from F (a float32 sum whose lanes accumulate in order),
// 34x the simulated float32 run's distance with sums perturbed by u*sqrt(K);
// a simulation of sums as a cascade of 16-term levels (tried: u*sqrt(64)
// for K = 64,000) put it at 870x, and the reference check called PyTorch's
// own rounding a difference in semantics. The simulated rounding of a long
// sum stays u*sqrt(K).
func TestLongSumsKeepFloat32sSequentialRounding(t *testing.T) {
	_, units := loadUnits(t, "testdata/bias_long_sum.json")
	u := units[0]
	refs, err := newReferences(u)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range u.Joint.GradTargets {
		w := gradNamed(t, u, name)
		e, n := refs.judge(w, w.pick(refs.native))
		if e == nil || e.Check == nil || !e.Check.Agree || !e.Match || !n.Match {
			t.Errorf("%s: gcdbg's eager float32 result and PyTorch's must match F: %s / %s", name, e.Detail(), n.Detail())
		}
	}
	w := gradNamed(t, u, "c2.bias")
	f, pt, noise := w.pick(refs.f64), refs.expected(w), w.pick(refs.noise)
	if dp, dn := rmsDiff(pt, f), rmsDiff(noise, f); dp < 10*dn {
		t.Errorf("test premise: PyTorch's c2.bias is far from F against the simulation (%.3g vs %.3g)", dp, dn)
	}
}
