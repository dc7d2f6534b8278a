package runner

import (
	"testing"

	"gcdbg/stages"
	"gcdbg/trace"
)

// Normalizations whose float32 statistics overflow (testdata/norm_overflow,
// exported from PyTorch 1.13): a layer_norm, RMSNorm and group_norm row of
// 1e18*randn whose sum of squared deviations passes float32's range, where
// PyTorch gives the bias (rstd = 1/sqrt(Inf) = 0) and RMSNorm 0, a mean of
// 1e36 values (+Inf), a float16 mean whose sum passes 65504 (+Inf), a bfloat16 layer_norm (the bias, as float32), and BatchNorm in training over the same values
// (accumulated in double: finite). The compiled kernels overflow as
// PyTorch's do, and F (float64) does not. With PyTorch's values in the
// trace the baseline is PyTorch's; without them (graph text, init tensors)
// it is gcdbg's own float32 eager run, which must overflow where float32
// does: before tensor.LayerNorm's and Mean's float32 overflow, that run
// summed in float64 and the layer_norm, RMSNorm and group_norm outputs were
// a MISMATCH against eager (rmse 0.46 vs bound 1.4e-05) although the
// compiled values are PyTorch's.
func TestNormOverflowMatchesPyTorch(t *testing.T) {
	tr, units, _ := renderFirstProgram(t, "testdata/norm_overflow.json")
	check := func(what string, tr *trace.Trace, units []*stages.Unit, withPyTorch bool) {
		t.Helper()
		res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Backend != "compiled" || !res.OK {
			t.Fatalf("%s: backend %q: does not match:\n%s", what, res.Backend, res.Summary())
		}
		g := res.Graphs[0]
		if len(g.Outputs) != 8 || len(g.Grads) != 6 {
			t.Fatalf("%s: %d outputs and %d grads, want 8 and 6", what, len(g.Outputs), len(g.Grads))
		}
		for _, o := range g.Outputs {
			if withPyTorch && (o.VsExpected == nil || !o.VsExpected.Match) {
				t.Errorf("%s: output %d vs PyTorch: %+v", what, o.Index, o.VsExpected)
			}
			if !withPyTorch && o.VsExpected != nil {
				t.Errorf("%s: output %d compared with PyTorch values the trace no longer has", what, o.Index)
			}
			if o.VsEager == nil || !o.VsEager.Match {
				t.Errorf("%s: output %d vs eager: %+v", what, o.Index, o.VsEager)
			}
		}
		for _, gd := range g.Grads {
			if withPyTorch && (gd.VsExpected == nil || !gd.VsExpected.Match) {
				t.Errorf("%s: grad %s vs PyTorch: %+v", what, gd.Name, gd.VsExpected)
			}
			if gd.VsEager == nil || !gd.VsEager.Match {
				t.Errorf("%s: grad %s vs eager: %+v", what, gd.Name, gd.VsEager)
			}
		}
	}
	check("with PyTorch's values", tr, units, true)

	tr2, err := trace.Load("testdata/norm_overflow.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range tr2.Graphs {
		g.Expected = nil
	}
	units2, err := stages.Run(tr2, "")
	if err != nil {
		t.Fatal(err)
	}
	check("without PyTorch's values", tr2, units2, false)
}
