package runner

import (
	"math"
	"testing"

	"gcdbg/stages"
	"gcdbg/verdict"
)

// attn_bias (verdict/testdata/models/attn_bias.py, exported by
// exporter/gcdbg_export.py from PyTorch 1.13): one training step of an
// attention GRU decoder whose attention scores v = Linear(64, 32,
// bias=True) go straight into a softmax over the encoder positions, so
// the gradient of v.bias is exactly zero by cancellation. PyTorch's
// float32 value is rounding noise (~1e-8), gcdbg's float64 reference
// ~1e-19. The user-reported false alarm: the reference check called this
// a semantics difference, because the simulated float32 run (a) turned NaN
// through the amax of cross_entropy's stable log_softmax (its perturbed
// maximum no longer equalled any element) and (b) perturbed the cancelling
// sum relative to its ~0 result instead of its terms.

const attnBias = "../verdict/testdata/attn_bias.json"

// attnBiasRefs loads attn_bias with its reference runs; w selects v.bias's
// gradient.
func attnBiasRefs(t *testing.T) (u *stages.Unit, refs *references, w what) {
	t.Helper()
	_, units := loadUnits(t, attnBias)
	u = units[0]
	refs, err := newReferences(u)
	if err != nil {
		t.Fatal(err)
	}
	return u, refs, gradNamed(t, u, "v.bias")
}

func gradNamed(t *testing.T, u *stages.Unit, name string) what {
	t.Helper()
	for i, n := range u.Joint.GradTargets {
		if n == name {
			return what{kind: "grad", index: i, name: n}
		}
	}
	t.Fatalf("test premise: the trace has a gradient for %s: %v", name, u.Joint.GradTargets)
	return what{}
}

func TestNoFalseAlarmOnCancelledBias(t *testing.T) {
	u, refs, w := attnBiasRefs(t)
	f, pt := w.pick(refs.f64), refs.expected(w)
	if f == nil || pt == nil {
		t.Fatal("test premise: F and PyTorch's value of v.bias")
	}
	if maxAbsOf(f) > 1e-15 || maxAbsOf(pt) < 1e-9 {
		t.Fatalf("test premise: F ≈ 0 (max %g) and PyTorch's value is rounding noise well above it (max %g)", maxAbsOf(f), maxAbsOf(pt))
	}
	// The simulated float32 run is finite wherever F is, on every gradient.
	for i, name := range u.Joint.GradTargets {
		gw := what{kind: "grad", index: i, name: name}
		nz, f64 := gw.pick(refs.noise), gw.pick(refs.f64)
		for k := 0; k < f64.Numel(); k++ {
			if fv, nv := f64.Flat(k), nz.Flat(k); !math.IsNaN(fv) && !math.IsInf(fv, 0) && (math.IsNaN(nv) || math.IsInf(nv, 0)) {
				t.Errorf("grad %s[%d]: simulated float32 rounding gives %g where F is %g", name, k, nv, fv)
				break
			}
		}
	}
	devices := []string{"eager"}
	if _, why := DefaultDevice(); why == "" {
		devices = append(devices, "cpu")
	}
	for _, device := range devices {
		tr, _ := loadUnits(t, attnBias)
		res, err := Run(tr, Options{Runs: 1, Device: device})
		if err != nil {
			t.Fatal(err)
		}
		g := res.Graphs[0]
		g.Judgements(func(what, against string, j *verdict.Judgement) {
			if !j.Match {
				t.Errorf("%s: %s %s: false alarm: %s", device, what, against, j.Detail())
			}
		})
		j := g.Grads[w.index].VsExpected
		if j == nil || j.Check == nil || !j.Check.Agree {
			t.Errorf("%s: the reference agrees with PyTorch on v.bias up to rounding: %+v", device, j)
		}
		if !res.OK {
			t.Errorf("%s: %s", device, res.Summary())
		}
	}
}

// The cancellation noise does not blind the verdict to a real error in
// that gradient: an error of 1e-3 of the layer's gradient scale (the rms
// of v.weight's gradient) in one element of v.bias is a MISMATCH against
// both PyTorch and eager, naming the element.
func TestVerdictCatchesErrorInCancelledBias(t *testing.T) {
	u, refs, w := attnBiasRefs(t)
	scale := rmsOf(gradNamed(t, u, "v.weight").pick(refs.f64))
	got := w.pick(refs.native).Clone()
	if e, n := refs.judge(w, got); !e.Match || !n.Match {
		t.Fatalf("gcdbg's own eager v.bias must match: %s / %s", e.Detail(), n.Detail())
	}
	inj := 1e-3 * scale
	if pt := maxAbsOf(refs.expected(w)); inj < 10*pt {
		t.Fatalf("test premise: the injected error %g is well above PyTorch's rounding noise %g", inj, pt)
	}
	got.SetFlat(3, got.Flat(3)+inj)
	vsExp, vsEager := refs.judge(w, got)
	t.Logf("injected %g (PyTorch's noise %g); worst-element bound vs PyTorch %g", inj, maxAbsOf(refs.expected(w)),
		vsExp.Multiplier*vsExp.BaselineWorstErr+vsExp.Floor)
	for name, j := range map[string]*verdict.Judgement{"vs PyTorch": vsExp, "vs eager": vsEager} {
		if j.Match {
			t.Errorf("%s: an error of %g in v.bias[3] must not match: %s", name, inj, j.Detail())
		} else if j.Worst == nil || len(j.Worst.Index) != 1 || j.Worst.Index[0] != 3 {
			t.Errorf("%s: the mismatch must name element 3: %+v", name, j.Worst)
		}
	}
}

func maxAbsOf(x interface {
	Numel() int
	Flat(int) float64
}) float64 {
	var m float64
	for i := 0; i < x.Numel(); i++ {
		m = math.Max(m, math.Abs(x.Flat(i)))
	}
	return m
}

func rmsOf(x interface {
	Numel() int
	Flat(int) float64
}) float64 {
	var s float64
	for i := 0; i < x.Numel(); i++ {
		s += x.Flat(i) * x.Flat(i)
	}
	return math.Sqrt(s / float64(max(1, x.Numel())))
}
