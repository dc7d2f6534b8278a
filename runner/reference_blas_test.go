package runner

import (
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/verdict"
)

// The float64 reference's GEMMs and convolutions go through OpenBLAS's
// dgemm (tensor/blas.go, conv_blas.go) and its runs drop dead values
// (stages.RunReferenceValues): on traces whose reference takes that path,
// every comparison still happens — each value is judged against the
// float64 reference with the simulated float32 baseline, and against
// PyTorch with the reference check — and an error of 1e-3 in one element
// of a gradient the pipeline computed is still a MISMATCH naming it.
func TestBLASReferenceStillCatchesInjectedError(t *testing.T) {
	for _, path := range []string{"../fixtures/mlp.json", "testdata/conv_plane_train.json"} {
		t.Run(path, func(t *testing.T) {
			_, units := loadUnits(t, path)
			u := units[0]
			before := tensor.BLASCalls()
			refs, err := newReferences(u)
			if err != nil {
				t.Fatal(err)
			}
			if tensor.BLASAvailable() && tensor.BLASCalls() == before {
				t.Fatal("premise: the reference runs' products go through dgemm")
			}
			if refs.f64 == nil || refs.noise == nil || refs.f64Err != nil {
				t.Fatalf("the float64 and simulated runs must exist: %v", refs.f64Err)
			}
			if refs.f64.Env != nil || refs.noise.Env != nil {
				t.Error("the float64 runs keep no node values (RunReferenceValues)")
			}
			// the values kept are those of the run that keeps every node
			full, err := u.RunReference(interp.Options{Precision: interp.Float64})
			if err != nil {
				t.Fatal(err)
			}
			sameValues(t, "float64 outputs", full.Outputs, refs.f64.Outputs)
			sameValues(t, "float64 grads", full.Grads, refs.f64.Grads)

			outs, grads, err := u.RunPipeline()
			if err != nil {
				t.Fatal(err)
			}
			var gr GraphResult
			if err := judgeGraph(u, refs, &gr, outs, grads, nil, nil); err != nil {
				t.Fatal(err)
			}
			checkAllMatch(t, gr, "")
			n := 0
			gr.Judgements(func(what, against string, j *verdict.Judgement) {
				n++
				if j.Reference != "gcdbg eager float64" || j.Multiplier == 0 {
					t.Errorf("%s %s: not judged against the float64 reference: %+v", what, against, j)
				}
				if !strings.Contains(j.Baseline, "simulated float32 rounding") {
					t.Errorf("%s %s: the simulated float32 baseline is missing (%q)", what, against, j.Baseline)
				}
				if against == "vs PyTorch" && j.Check == nil {
					t.Errorf("%s: no reference check against PyTorch", what)
				}
			})
			if want := 2 * (len(gr.Outputs) + len(gr.Grads) + len(gr.Buffers)); n != want || len(gr.Grads) == 0 {
				t.Fatalf("%d comparisons, want %d (outputs and grads, each vs PyTorch and vs eager)", n, want)
			}

			bad := append([]ir.Value(nil), grads...)
			g := grads[0].(*tensor.Tensor).Clone()
			g.SetFlat(7, g.Flat(7)*(1+1e-3))
			bad[0] = g
			if err := judgeGraph(u, refs, &gr, outs, bad, nil, nil); err != nil {
				t.Fatal(err)
			}
			for what, j := range map[string]*verdict.Judgement{"vs PyTorch": gr.Grads[0].VsExpected, "vs eager": gr.Grads[0].VsEager} {
				if j.Match || j.Worst == nil {
					t.Errorf("grad %s %s: a 1e-3 error in one element must be a MISMATCH naming it: %s", gr.Grads[0].Name, what, j.Detail())
				}
			}
		})
	}
}

// sameValues fails t unless got holds want's tensors bit for bit.
func sameValues(t *testing.T, what string, want, got []ir.Value) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		w, err1 := interp.AsTensor(want[i])
		g, err2 := interp.AsTensor(got[i])
		if err1 != nil || err2 != nil || w.Numel() != g.Numel() {
			t.Fatalf("%s %d: %v %v", what, i, err1, err2)
		}
		for k := 0; k < w.Numel(); k++ {
			if a, b := w.Flat(k), g.Flat(k); a != b && !(a != a && b != b) {
				t.Fatalf("%s %d [%d]: %v, want %v", what, i, k, b, a)
			}
		}
	}
}
