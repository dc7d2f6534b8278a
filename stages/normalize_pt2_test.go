package stages_test

import (
	"strings"
	"testing"

	"gcdbg/graphtext"
	"gcdbg/interp"
	"gcdbg/stages"
	"gcdbg/tensor"
)

const nativeLayerNorm = `def forward(self, x: "f32[2, 4]", w: "f32[4]", b: "f32[4]"):
    native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [4], w, b, 1e-05)
    getitem: "f32[2, 4]" = native_layer_norm[0]
    ref: "f32[2, 4]" = torch.ops.aten.layer_norm.default(x, [4], w, b, 1e-05)
    return (getitem, ref%s)
`

// An aten-level inference graph's native_layer_norm becomes layer_norm,
// its getitem 0 that value; reading its statistics (item 1, the mean) is
// refused with the node named.
func TestNormalizeNativeLayerNorm(t *testing.T) {
	tr, err := graphtext.Parse([]byte(strings.Replace(nativeLayerNorm, "%s", "", 1)), "", "ln.py")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "normalized")
	if err != nil {
		t.Fatal(err)
	}
	g := units[0].Normalized
	for _, n := range g.Nodes {
		if strings.Contains(n.Target, "getitem") || strings.Contains(n.Target, "native") {
			t.Errorf("node %s: %s left in the normalized graph", n.Name, n.Target)
		}
	}
	if n := g.Node("native_layer_norm"); n == nil || n.Target != "aten.layer_norm" {
		t.Fatalf("native_layer_norm became %+v", n)
	}
	outs, err := interp.Run(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := outs[0].(*tensor.Tensor), outs[1].(*tensor.Tensor)
	for i := 0; i < a.Numel(); i++ {
		if a.Flat(i) != b.Flat(i) {
			t.Fatalf("native_layer_norm's output %v differs from layer_norm's %v", a, b)
		}
	}

	bad := strings.Replace(nativeLayerNorm, "%s", ", native_layer_norm[1]", 1)
	tr, err = graphtext.Parse([]byte(bad), "", "ln.py")
	if err != nil {
		t.Fatal(err)
	}
	_, err = stages.Run(tr, "normalized")
	if err == nil || !strings.Contains(err.Error(), "item 1 of native_layer_norm") || !strings.Contains(err.Error(), `node "getitem_1"`) {
		t.Errorf("reading the mean: err %v, want one naming getitem_1 and item 1", err)
	}
}
