package runner

import (
	"math"
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
)

// A backend's own decisions of the comparisons within rounding of their
// threshold are read from the tensors its forward saved (decidedFlips),
// not guessed among the flipMost nearest: a style-transfer network's
// compiled kernels decided one ReLU element outside the 16 candidates the
// other way, and two gradients were a false alarm (examples/review8
// finding 3). Here the search is denied the element that was flipped (it
// is taken out of the candidates, as an element beyond the 16th is), and
// the "compiled" gradient is F with that element flipped, rounded to
// float32.
func TestDecidedFlipsAreReadFromTheSavedTensors(t *testing.T) {
	x := newWaveFlip(t, 1e-4)
	refs, saved, w, c, flipped, from := x.refs, x.saved, x.w, x.c, x.flipped, x.from
	if got, _ := siteDecisions(flipSite{cmp: c.cmp, y: from, thr: 0}, saved)(c.i); got != c.fTrue {
		t.Fatalf("test premise: the eager pipeline decided %s[%d] as F", c.cmp.Name, c.i)
	}
	var keep []flipCand
	for _, k := range refs.flipped.cands {
		if k.cmp != c.cmp || k.i != c.i {
			keep = append(keep, k)
		}
	}
	refs.flipped.cands = keep

	got := toFloat32(flipped)
	// The run's saved ReLU output, with that element on the other side.
	decidedOther := map[string]*tensor.Tensor{}
	for k, v := range saved {
		decidedOther[k] = v
	}
	decidedOther[from.Name] = x.otherSide()

	dec := refs.flipped.decided(decidedOther, nil)
	dec.resolve()
	if dec == nil || dec.n != 1 {
		t.Fatalf("want the one flip read from the saved values, got %+v", dec)
	}
	e, n := refs.judgeDecided(w, got, dec)
	if !e.Match || !n.Match {
		t.Errorf("F with the flip the run made must match: %s / %s", e.Detail(), n.Detail())
	}
	if !strings.Contains(e.Reference, "as the run judged here decided them") {
		t.Errorf("the reference must say the flips were read from the run: %q", e.Reference)
	}
	// Without the saved values the search, which lacks the element, fails.
	if e, n := refs.judge(w, got); e.Match || n.Match {
		t.Errorf("without the run's decisions the flip is outside the candidates and must not match: %s / %s", e.Detail(), n.Detail())
	}
	// A run that saved F's decision there did not flip it: no match.
	if e, n := refs.judgeDecided(w, got, refs.flipped.decided(saved, nil)); e.Match || n.Match {
		t.Errorf("a flip the run's saved values do not show must not be granted: %s / %s", e.Detail(), n.Detail())
	}
	// An error beside the flip is still caught: 1e-4 of the gradient at
	// its largest element.
	big := 0
	for i := 0; i < got.Numel(); i++ {
		if math.Abs(got.Flat(i)) > math.Abs(got.Flat(big)) {
			big = i
		}
	}
	bad := got.Clone()
	bad.SetFlat(big, bad.Flat(big)*1.0001)
	if e, n := refs.judgeDecided(w, bad, dec); e.Match || n.Match {
		t.Errorf("an error of 1e-4 beside the flip must not match: %s / %s", e.Detail(), n.Detail())
	}
}

// bn_relu_pin's backward recomputes its ReLUs from the BatchNorms' saved
// inputs, so no saved tensor shows how the compiled backward decided
// them: the probe (the backward built again with the comparisons
// returned) reads them, and is believed only where its gradients are
// bit-identical to the judged run's.
func TestBackwardProbeReadsTheRecomputedDecisions(t *testing.T) {
	tr, units := loadUnits(t, "testdata/bn_relu_pin.json")
	u := units[0]
	refs, err := newReferences(u)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, sc := range refs.flipped.sites {
		if len(sc.cands) == 0 {
			continue
		}
		if siteDecisions(sc.site, nil) != nil {
			t.Fatalf("test premise: %s is not saved", sc.site.cmp.Name)
		}
		want = append(want, sc.site.cmp.Name)
	}
	if len(want) == 0 {
		t.Fatal("test premise: ambiguous elements at a recomputed comparison")
	}
	opt := Options{Runs: 1, Device: "cpu"}
	cr, err := runCompiled(tr, u, opt)
	if err != nil {
		t.Fatal(err)
	}
	probe := probeBackward(tr, u, opt, cr.results)
	vals, err := probe(want)
	if err != nil {
		t.Fatalf("the probe of an unchanged backward must be believed: %v", err)
	}
	dec := refs.flipped.decided(cr.results.Saved, probe)
	dec.resolve()
	for _, sc := range refs.flipped.sites {
		if len(sc.cands) == 0 {
			continue
		}
		m := vals[sc.site.cmp.Name]
		if m == nil || m.DType != tensor.Bool || !dec.read[sc.site.cmp] {
			t.Errorf("%s: no decisions read from the probe (%v)", sc.site.cmp.Name, m)
		}
	}
	if !dec.probed || dec.probeErr != nil {
		t.Errorf("the decisions must come from the probe: probed %v, %v", dec.probed, dec.probeErr)
	}
	// A probe whose gradients differ from the judged run's by one float
	// step is not believed.
	other := stages.NewResults[*tensor.Tensor]()
	other.Saved = cr.results.Saved
	for _, g := range cr.results.Grads {
		other.Grads = append(other.Grads, g.Clone())
	}
	g0 := other.Grads[0]
	g0.SetFlat(0, float64(math.Nextafter32(float32(g0.Flat(0)), float32(math.Inf(1)))))
	if _, err := probeBackward(tr, u, opt, other)(want); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Errorf("a probe whose gradient 0 differs by one float step must be refused, got %v", err)
	}
}

// gcdbg's eager float32 run decides ambiguous elements by rounding too;
// where it flipped one, its distance from F - a baseline - was that flip's
// effect, and an error smaller than the effect matched (examples/review9
// finding 4: a MobileNetV2's ReLU6 input at -7.4e-7 made nine gradients'
// bounds 10⁴× rounding). The eager run's flips are read from its own
// values and their effect is taken out of its baseline. Here the eager
// run is made to flip one element.
func TestEagerBaselineLosesItsOwnFlips(t *testing.T) {
	x := newWaveFlip(t, 1e-3)
	refs, w, f := x.refs, x.w, x.f
	// The eager run flipped c: its gradient is F's with the flip, and its
	// kept ReLU output shows it.
	refs.native.Grads[w.index] = toFloat32(x.flipped)
	refs.nativeFlips = refs.flipped.decided(map[string]*tensor.Tensor{x.from.Name: x.otherSide()}, nil)

	good := toFloat32(f)
	if e, n := refs.judge(w, good); !e.Match || !n.Match {
		t.Errorf("F rounded to float32 must match: %s / %s", e.Detail(), n.Detail())
	}
	if e, _ := refs.judge(w, good); !strings.Contains(e.Baseline, "gcdbg eager float32 less the effect of its 1 comparison element") {
		t.Errorf("the eager baseline must say its flip was taken out: %q", e.Baseline)
	}
	// An error of 1e-4 of the gradient's largest element, below the flip's
	// effect: hidden behind the eager baseline before, caught now.
	big := 0
	for i := 0; i < good.Numel(); i++ {
		if math.Abs(good.Flat(i)) > math.Abs(good.Flat(big)) {
			big = i
		}
	}
	bad := good.Clone()
	bad.SetFlat(big, bad.Flat(big)*1.0001)
	if e, n := refs.judge(w, bad); e.Match || n.Match {
		t.Errorf("an error below the eager run's flip effect must not match: %s / %s", e.Detail(), n.Detail())
	}
}

// waveFlip is relu_flip_wavenet's references, its eager pipeline's saved
// tensors and one ambiguous element c whose flip moves out1.bias's
// gradient (w; F's value f) by more than rel of it: flipped is F's
// gradient with c flipped, from the value c's comparison reads.
type waveFlip struct {
	refs    *references
	saved   map[string]*tensor.Tensor
	w       what
	f       *tensor.Tensor
	c       flipCand
	flipped *tensor.Tensor
	from    *ir.Node
}

func newWaveFlip(t *testing.T, rel float64) *waveFlip {
	t.Helper()
	_, units := loadUnits(t, "testdata/relu_flip_wavenet.json")
	u := units[0]
	refs, err := newReferences(u)
	if err != nil {
		t.Fatal(err)
	}
	_, _, savedVals, err := u.RunPipelineSaved()
	if err != nil {
		t.Fatal(err)
	}
	x := &waveFlip{refs: refs, saved: savedTensors(savedVals), w: gradNamed(t, u, "out1.bias")}
	x.f = x.w.pick(refs.f64)
	for _, sc := range refs.flipped.sites {
		for _, cand := range sc.cands {
			rr := refs.flipped.runFlips(map[*ir.Node][]int{cand.cmp: {cand.i}}, "test")
			if d := effectOn(x.w, rr, x.f); d != nil && rmsOf(d) > rel*rmsOf(x.f) && x.flipped == nil {
				x.c, x.flipped = cand, x.w.pick(rr)
			}
		}
	}
	if x.flipped == nil {
		t.Fatalf("test premise: an ambiguous element whose flip moves out1.bias's gradient by %g of it", rel)
	}
	from, ok := x.c.cmp.Args[0].(*ir.Node)
	if !ok || x.saved[from.Name] == nil {
		t.Fatalf("test premise: the pipeline saves %s's input for the backward", x.c.cmp.Name)
	}
	x.from = from
	return x
}

// otherSide is the saved value of c's comparison input with c on the
// other side of its threshold from F.
func (x *waveFlip) otherSide() *tensor.Tensor {
	moved := x.saved[x.from.Name].Clone()
	if x.c.fTrue {
		moved.SetFlat(x.c.i, 0)
	} else {
		moved.SetFlat(x.c.i, 1e-30)
	}
	return moved
}

// toFloat32 is x rounded to float32.
func toFloat32(x *tensor.Tensor) *tensor.Tensor {
	out, _ := tensor.Zeros(x.Shape, tensor.Float32)
	for i := 0; i < x.Numel(); i++ {
		out.SetFlat(i, float64(float32(x.Flat(i))))
	}
	return out
}
