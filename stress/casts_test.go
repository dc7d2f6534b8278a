package stress

import (
	"testing"

	"gcdbg/runner"
	"gcdbg/trace"
)

// Float-to-integer casts of NaN, ±Inf and out-of-range values (undefined
// in C) give PyTorch's numbers exactly, in the generated C and in the
// eager interpreter. testdata/casts.json is exported from PyTorch 1.13
// (testdata/casts.py); before the fix the compiled int32 cast of NaN and
// the eager one differed by 2^31.
func TestCastsMatchPyTorch(t *testing.T) {
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	tr, err := trace.Load("testdata/casts.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range []string{"eager", "cpu"} {
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		if len(res.Graphs) != 1 || len(res.Graphs[0].Outputs) != 11 {
			t.Fatalf("%s: unexpected result shape: %+v", dev, res)
		}
		for _, o := range res.Graphs[0].Outputs {
			if o.VsExpected == nil {
				t.Fatalf("%s: output %d has no PyTorch comparison", dev, o.Index)
			}
			if !o.VsExpected.Match || o.VsExpected.MaxAbsErr != 0 {
				t.Errorf("%s: output %d (%s) differs from PyTorch: max abs err %g (%s)", dev, o.Index, o.DType, o.VsExpected.MaxAbsErr, o.VsExpected.Why)
			}
			if o.VsEager != nil && (!o.VsEager.Match || o.VsEager.MaxAbsErr != 0) {
				t.Errorf("%s: output %d (%s) differs from eager: max abs err %g", dev, o.Index, o.DType, o.VsEager.MaxAbsErr)
			}
		}
		if dev == "cpu" && res.Backend != "compiled" {
			t.Fatalf("cpu run did not compile (backend %q)", res.Backend)
		}
	}
}
