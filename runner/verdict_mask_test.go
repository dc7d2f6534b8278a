package runner

import "testing"

// mask_min_attn (runner/testdata/models/mask_min_attn.py, exported from
// PyTorch 1.13): the HF extended attention mask (1.0 - mask.float()) *
// finfo(float32).min added to attention scores. float32 computes 1.0 - 1.0
// exactly; the simulated float32 run perturbed the converted 1.0 and put
// +-2e31 on every kept key, so its distance from F (the baseline) was of
// the size of the values (43 on the output, 7-13 on the grads) and any
// error passed.
func TestExactMaskKeepsTheBaselineSmall(t *testing.T) {
	_, units := loadUnits(t, "testdata/mask_min_attn.json")
	u := units[0]
	refs, err := newReferences(u)
	if err != nil {
		t.Fatal(err)
	}
	checks := []what{{kind: "output", index: 0}, gradNamed(t, u, "qkv.weight"), gradNamed(t, u, "o.bias")}
	for _, w := range checks {
		f, nz, pt := w.pick(refs.f64), w.pick(refs.noise), refs.expected(w)
		if f == nil || nz == nil || pt == nil {
			t.Fatalf("%s %d: test premise: F, the simulated run and PyTorch's value", w.kind, w.index)
		}
		scale := rmsOf(f)
		if d := rmsDiff(pt, f); d > 1e-5*scale {
			t.Fatalf("%s %d: test premise: F agrees with PyTorch (rmse %g, rms %g)", w.kind, w.index, d, scale)
		}
		// float32 rounding through a 16-wide attention: far below 1e-4 of the value, not 0.
		if d := rmsDiff(nz, f); d > 1e-4*scale || d == 0 {
			t.Errorf("%s %d: simulated float32 rounding is %g from F (rms %g): want rounding noise", w.kind, w.index, d, scale)
		}
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
