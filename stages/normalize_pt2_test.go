package stages_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gcdbg/graphtext"
	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/tensor"
)

const nativeLayerNorm = `def forward(self, x: "f32[2, 4]", w: "f32[4]", b: "f32[4]"):
    native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [4], w, b, 1e-05)
    getitem: "f32[2, 4]" = native_layer_norm[0]
    ref: "f32[2, 4]" = torch.ops.aten.layer_norm.default(x, [4], w, b, 1e-05)
    return (getitem, ref%s)
`

// An aten-level graph's native_layer_norm is the canonical op of that name:
// item 0 is layer_norm's value, items 1 and 2 the mean and rstd (kept
// dims), through the decomposed graph too.
func TestNormalizeNativeLayerNorm(t *testing.T) {
	src := strings.Replace(nativeLayerNorm, "%s", ", native_layer_norm[1], native_layer_norm[2]", 1)
	tr, err := graphtext.Parse([]byte(src), "", "ln.py")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "decomposed")
	if err != nil {
		t.Fatal(err)
	}
	if u := units[0]; u.Failure != nil {
		t.Fatalf("stopped: %v", u.Failure)
	}
	if n := units[0].Normalized.Node("native_layer_norm"); n == nil || n.Target != "aten.native_layer_norm" {
		t.Fatalf("native_layer_norm became %+v", n)
	}
	for _, g := range []*ir.Graph{units[0].Normalized, units[0].Decomposed} {
		outs, err := interp.Run(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := outs[0].(*tensor.Tensor), outs[1].(*tensor.Tensor)
		if c := interp.Compare(a, b, interp.Tolerance{Rtol: 1e-6, Atol: 1e-6}); !c.Match {
			t.Errorf("native_layer_norm's output differs from layer_norm's: %+v", c)
		}
		x := g.Tensors["x"].T
		mean, rstd := outs[2].(*tensor.Tensor), outs[3].(*tensor.Tensor)
		if !slices.Equal(mean.Shape, []int{2, 1}) || !slices.Equal(rstd.Shape, []int{2, 1}) {
			t.Fatalf("mean %v, rstd %v: want [2, 1] each", mean.Shape, rstd.Shape)
		}
		for r := 0; r < 2; r++ {
			m, v := 0.0, 0.0
			for c := 0; c < 4; c++ {
				m += x.At(r, c) / 4
			}
			for c := 0; c < 4; c++ {
				v += (x.At(r, c) - m) * (x.At(r, c) - m) / 4
			}
			if math.Abs(mean.At(r, 0)-m) > 1e-6 || math.Abs(rstd.At(r, 0)-1/math.Sqrt(v+1e-5)) > 1e-4*rstd.At(r, 0) {
				t.Errorf("row %d: mean %v rstd %v, want %v and %v", r, mean.At(r, 0), rstd.At(r, 0), m, 1/math.Sqrt(v+1e-5))
			}
		}
	}
}
