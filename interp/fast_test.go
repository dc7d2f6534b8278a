package interp_test

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
	"gcdbg/verdict"
)

var precisions = []struct {
	name string
	opt  interp.Options
}{
	{"native", interp.Options{}},
	{"float64", interp.Options{Precision: interp.Float64}},
	{"float64 with simulated float32 rounding", interp.Options{Precision: interp.Float64Noise, Seed: interp.NoiseSeed}},
}

func convBNUnit(t *testing.T) *stages.Unit {
	t.Helper()
	tr, err := trace.Load("testdata/convbn_train.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(units) != 1 || units[0].Joint == nil {
		t.Fatalf("want one training graph, got %d units", len(units))
	}
	return units[0]
}

// refValues are a reference run's outputs, grads and buffers by name.
func refValues(t *testing.T, u *stages.Unit, rr *stages.RefRun) map[string]*tensor.Tensor {
	t.Helper()
	vals := map[string]*tensor.Tensor{}
	add := func(name string, v ir.Value) {
		x, err := interp.AsTensor(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		vals[name] = x
	}
	for i, v := range rr.Outputs {
		add(fmt.Sprintf("output %d", i), v)
	}
	for i, v := range rr.Grads {
		add("grad of "+u.Joint.GradTargets[i], v)
	}
	for name, b := range rr.Buffers {
		add("buffer "+name, b)
	}
	return vals
}

// The verdict's three reference runs (native, float64, float64 with
// simulated float32 rounding) of a real training trace (a MobileNetV2
// block exported by PyTorch: convolutions, training-mode batch norm, ReLU6,
// GELU, cross-entropy) give the same values bit for bit with the
// elementwise loops split across the cores and the noise applied in passes
// (the fast path) as with everything on one core, element by element (the
// path before it): the split computes each element alone, and the random
// numbers are drawn in the same order.
func TestFastReferenceRunsAreBitIdentical(t *testing.T) {
	u := convBNUnit(t)
	// More chunks than this machine's cores and an odd count: chunk
	// boundaries fall inside rows.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(7))
	for _, p := range precisions {
		fast, err := u.RunReferenceValues(p.opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		wasT, wasN := tensor.SetSerial(true), interp.SetSerialNoise(true)
		slow, err := u.RunReferenceValues(p.opt, nil)
		tensor.SetSerial(wasT)
		interp.SetSerialNoise(wasN)
		if err != nil {
			t.Fatal(err)
		}
		fv, sv := refValues(t, u, fast), refValues(t, u, slow)
		if len(fv) != len(sv) || len(fv) < 10 {
			t.Fatalf("%s: %d values, one core %d (want the loss, 10 grads, buffers)", p.name, len(fv), len(sv))
		}
		big := 0
		for name, s := range sv {
			f := fv[name]
			if f == nil || f.Numel() != s.Numel() || f.DType != s.DType {
				t.Errorf("%s: %s differs in shape or dtype", p.name, name)
				continue
			}
			if s.Numel() >= 400 {
				big++
			}
			for i := 0; i < s.Numel(); i++ {
				if a, b := f.Flat(i), s.Flat(i); math.Float64bits(a) != math.Float64bits(b) {
					t.Errorf("%s: %s[%d] = %v, on one core %v", p.name, name, i, a, b)
					break
				}
			}
		}
		if big == 0 {
			t.Errorf("%s: no value of 400 elements or more compared", p.name)
		}
	}
}

// The verdict built from the fast reference runs still catches a 1e-3
// relative error in one element of a gradient (against PyTorch's value and
// against gcdbg's eager one), and passes the unchanged gradient.
func TestFastReferencesCatchInjectedError(t *testing.T) {
	u := convBNUnit(t)
	var rr [3]*stages.RefRun
	for i, p := range precisions {
		var err error
		if rr[i], err = u.RunReferenceValues(p.opt, nil); err != nil {
			t.Fatal(err)
		}
	}
	exp := u.Captured.Expected
	checked := 0
	for gi, name := range u.Joint.GradTargets {
		native, _ := interp.AsTensor(rr[0].Grads[gi])
		f64, _ := interp.AsTensor(rr[1].Grads[gi])
		noise, _ := interp.AsTensor(rr[2].Grads[gi])
		pt := exp.Grads[name]
		if pt == nil || native.Numel() < 100 {
			continue
		}
		checked++
		judge := func(got *tensor.Tensor) (vsPT, vsEager verdict.Judgement) {
			base := verdict.Baselines(pt, native, noise)
			vsPT = verdict.Judge(verdict.Input{Result: got, Against: pt, Ref64: f64, Baselines: base, Independent: pt, Noise: noise})
			vsEager = verdict.Judge(verdict.Input{Result: got, Against: native, Ref64: f64, Baselines: base})
			return
		}
		if a, b := judge(native); !a.Match || !b.Match {
			t.Errorf("grad of %s: gcdbg's own eager gradient must match: %s / %s", name, a.Detail(), b.Detail())
		}
		// The largest element, so the error is not lost beside rounding.
		k := 0
		for i := 0; i < native.Numel(); i++ {
			if math.Abs(native.Flat(i)) > math.Abs(native.Flat(k)) {
				k = i
			}
		}
		bad := native.Clone()
		bad.SetFlat(k, bad.Flat(k)*(1+1e-3))
		a, b := judge(bad)
		for what, j := range map[string]verdict.Judgement{"vs PyTorch": a, "vs eager": b} {
			if j.Match {
				t.Errorf("grad of %s %s: a 1e-3 error in element %d must not match: %s", name, what, k, j.Detail())
			}
		}
	}
	if checked < 4 {
		t.Fatalf("only %d gradients checked", checked)
	}
}
