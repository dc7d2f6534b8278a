package stages

import (
	"testing"

	"gcdbg/interp"
	"gcdbg/trace"
)

// h.max(dim=-1).values / .indices, min, sort(...).values[:, :3], topk(...)
// .values / .indices exported from PyTorch (testdata/models/
// namedtuple_fields.py) normalize to getitem 0 / 1 and compute PyTorch's
// outputs: values to float32 rounding, indices exactly.
func TestNamedTupleFieldsMatchPyTorch(t *testing.T) {
	tr, err := trace.Load("testdata/namedtuple/namedtuple_fields.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "decomposed")
	if err != nil {
		t.Fatal(err)
	}
	u := units[0]
	got, err := interp.Run(u.Decomposed, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := u.Captured.Expected.Outputs
	if len(got) != len(want) || len(want) != 6 {
		t.Fatalf("%d outputs, PyTorch %d (want 6)", len(got), len(want))
	}
	for i, w := range want {
		g, err := interp.AsTensor(got[i])
		if err != nil {
			t.Fatal(err)
		}
		if g.DType != w.DType {
			t.Errorf("output %d: dtype %s, PyTorch %s", i, g.DType, w.DType)
			continue
		}
		tol := interp.Tolerance{Rtol: 1e-5, Atol: 1e-6}
		if !w.DType.IsFloat() {
			tol = interp.Tolerance{}
		}
		if c := interp.Compare(g, w, tol); !c.Match {
			t.Errorf("output %d differs from PyTorch: %+v", i, c)
		}
	}
}
