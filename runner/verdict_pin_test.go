package runner

import (
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// bn_relu_pin (runner/testdata/models/bn_relu_pin.py, exported from
// PyTorch 1.13): three Conv2d + BatchNorm2d (training) + ReLU at B8 x 32 x
// 64 x 64. The simulated float32 run perturbs BatchNorm's batch sums over
// 32,768 terms by u*sqrt(K) (~1e-5 of them, ~100x a real float32 run's),
// and that flipped a few ReLU mask elements in the simulated run that
// F, PyTorch and the compiled kernels all decide alike: its distance from
// F, one of the verdict's baselines, was then ~1e-3 of c1.weight's
// gradient, 300x PyTorch's own, and a gradient 0.1% off matched. The
// simulated run now decides the joint graph's comparisons as F does
// (interp.Options.Pin, runner/pinDecisions).
func TestSimulatedRunDecidesComparisonsAsF(t *testing.T) {
	const path = "testdata/bn_relu_pin.json"
	_, units := loadUnits(t, path)
	u := units[0]

	// The premise: without the pins the simulated run flips masks.
	sites := flipSites(u.Joint.Graph)
	fOpt := interp.Options{Precision: interp.Float64, Keep: flipKeep(sites), Kept: map[*ir.Node]ir.Value{}}
	nOpt := interp.Options{Precision: interp.Float64Noise, Seed: interp.NoiseSeed, Keep: fOpt.Keep, Kept: map[*ir.Node]ir.Value{}}
	if _, err := u.RunReferenceValues(fOpt, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := u.RunReferenceValues(nOpt, nil); err != nil {
		t.Fatal(err)
	}
	disagree := 0
	for _, s := range sites {
		a, _ := fOpt.Kept[s.y].(*tensor.Tensor)
		b, _ := nOpt.Kept[s.y].(*tensor.Tensor)
		if a == nil || b == nil {
			t.Fatalf("%s: no kept values", s.cmp.Name)
		}
		for i := 0; i < a.Numel(); i++ {
			if (a.Flat(i) > s.thr) != (b.Flat(i) > s.thr) {
				disagree++
			}
		}
	}
	if len(sites) != 3 || disagree == 0 {
		t.Fatalf("test premise: 3 ReLU comparisons (%d), the simulated run decides some element otherwise (%d)", len(sites), disagree)
	}

	refs, err := newReferences(u)
	if err != nil {
		t.Fatal(err)
	}
	w := gradNamed(t, u, "c1.weight")
	f, noise, pt := w.pick(refs.f64), w.pick(refs.noise), refs.expected(w)
	scale := rmsOf(f)
	// The simulated run is now within a few times PyTorch's own distance
	// from F (it was 330x: 1.0e-4 against 3.2e-7).
	if dn, dp := rmsDiff(noise, f), rmsDiff(pt, f); dn > 10*dp {
		t.Errorf("c1.weight: the simulated run is %.3g from F, PyTorch %.3g: %.0fx", dn, dp, dn/dp)
	}
	// A gradient 0.1% off is a MISMATCH (it matched: bound 3e-3 of the
	// gradient).
	got := w.pick(refs.native).Clone()
	for i := 0; i < got.Numel(); i++ {
		got.SetFlat(i, got.Flat(i)*1.001)
	}
	if e, n := refs.judge(w, got); e.Match || n.Match {
		t.Errorf("c1.weight's gradient 0.1%% (%.3g) off must not match: %s / %s", 1e-3*scale, e.Detail(), n.Detail())
	}

	// And the compiled kernels still match everything.
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(tr, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	checkAllMatch(t, res.Graphs[0], " (cpu)")
}
