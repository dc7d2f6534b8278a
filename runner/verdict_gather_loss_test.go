package runner

import "testing"

// wide_vocab_ce (runner/testdata/models/wide_vocab_ce.py, exported from
// PyTorch 1.13): an Embedding(20000, 4) lookup of 64 ids and a
// cross_entropy over 20,000 logits with ignore_index, in training. The
// simulated float32 run counted the gather as a sum of table rows / ids
// terms (every embedding perturbed by ~18 units of roundoff, where float32
// copies it exactly) and the mean loss as a sum of every logit (1.4e3
// units of roundoff on the loss): its distance from F, the baseline, was
// many times PyTorch's own float32 error.
func TestGatherAndLossKeepTheBaselineNearFloat32(t *testing.T) {
	_, units := loadUnits(t, "testdata/wide_vocab_ce.json")
	u := units[0]
	refs, err := newReferences(u)
	if err != nil {
		t.Fatal(err)
	}
	checks := []what{{kind: "output", index: 0}, gradNamed(t, u, "proj.weight"), gradNamed(t, u, "head.bias")}
	for _, w := range checks {
		f, nz, pt := w.pick(refs.f64), w.pick(refs.noise), refs.expected(w)
		if f == nil || nz == nil || pt == nil {
			t.Fatalf("%s %s: test premise: F, the simulated run and PyTorch's value", w.kind, w.name)
		}
		scale := rmsOf(f)
		sim, real := rmsDiff(nz, f), rmsDiff(pt, f)
		t.Logf("%s %d %s: rms %g, simulated float32 %g (%.3g of the value), PyTorch float32 %g (%.3g)", w.kind, w.index, w.name, scale, sim, sim/scale, real, real/scale)
		if sim == 0 {
			t.Errorf("%s %s: the simulated run is F itself: no rounding simulated", w.kind, w.name)
		}
		// PyTorch's own float32 error is 5e-8 of the loss; before, the
		// simulated loss sat 6.7e-5 of it from F (after, 9e-8). The grads
		// go through the head's 20,000-term sums, which the simulation
		// sizes at 7e-6-1e-5 of them, before and after.
		if w.kind == "output" && sim > 1e-6*scale {
			t.Errorf("%s %s: simulated float32 rounding %.3g of the value, PyTorch's own %.3g: the baseline is inflated", w.kind, w.name, sim/scale, real/scale)
		}
	}
	// The loss still catches an error well above rounding.
	w := what{kind: "output", index: 0}
	got := w.pick(refs.native).Clone()
	got.SetFlat(0, got.Flat(0)*(1+1e-4))
	if e, n := refs.judge(w, got); e.Match || n.Match {
		t.Errorf("a loss 1e-4 off must not match: %s / %s", e.Detail(), n.Detail())
	}
}
