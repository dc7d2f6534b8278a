package dynamo

import (
	"strings"
	"testing"

	"gcdbg/ir"
)

// A dynamic entry is symbolic in every graph after the normalized one, its
// loop programs range over s0 and its kernels take ks0; the static entries
// before it have no symbol anywhere.
func TestDynamicEntrySymbolicDownToKernels(t *testing.T) {
	c, _, err := New(load(t, "mlp.json"), "g0")
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"x=4x28x28", "x=2x28x28"} {
		if _, err := c.Call(frame(t, c, set)); err != nil {
			t.Fatal(err)
		}
	}
	u := c.Entries[2].Unit()
	for label, want := range map[string][]string{
		"decomposed": {`x: "f32[s0, 28, 28]"`, `flatten: "f32[s0, 784]"`, `linear_relu_stack_4: "f32[s0, 10]"`},
		"forward":    {`primals_1: "f32[s0, 28, 28]"`, `linear_relu_stack_0_mm: "f32[s0, 512]"`, `primals_2: "f32[512, 784]"`},
		"backward":   {`tangents_1: "f32[s0, 10]"`, `permute_6: "f32[784, s0]"`, `mm_4: "f32[784, 512]"`, `view: "f32[10]"`},
	} {
		got := ir.Readable(graphByLabel(u, label))
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s graph lacks %q:\n%s", label, w, got)
			}
		}
	}
	if len(u.Programs) != 2 {
		t.Fatalf("%d programs", len(u.Programs))
	}
	for _, lp := range u.Programs {
		if lp.Source == nil || len(lp.Source.Manifest.Symbols) != 1 || lp.Source.Manifest.Symbols[0] != "ks0" ||
			!strings.Contains(lp.Source.Code, "const int64_t ks0 = syms[0];") {
			t.Errorf("%s program: symbols %v", lp.Role, lp.Source.Manifest.Symbols)
		}
	}
	for _, e := range c.Entries[:2] {
		for _, lp := range e.Unit().Programs {
			if len(lp.Source.Manifest.Symbols) != 0 || strings.Contains(ir.Readable(lp.Graph), "s0") {
				t.Errorf("static entry %s (%s) has symbols %v", e.ID, lp.Role, lp.Source.Manifest.Symbols)
			}
		}
	}
}

// The transformer block's attention views x as [8*s0, 32]: the loop IR
// takes only bare symbols as sizes, so the entry is compiled static, and
// the cache says why (naming graph, node, size and the limiting file).
func TestDynamicRefusedForScaledSymbol(t *testing.T) {
	c, _, err := New(load(t, "transformer_block.json"), "g0")
	if err != nil {
		t.Fatal(err)
	}
	var call *Call
	for _, set := range []string{"x=3x8x32", "x=4x8x32"} {
		if call, err = c.Call(frame(t, c, set)); err != nil {
			t.Fatal(err)
		}
	}
	acts := strings.Join(call.Actions, "\n")
	if !strings.Contains(acts, `cannot compile x dim 0 (s0) dynamic: forward graph "g0.forward": node "attn_c_attn_view": dim 0 is 8*s0`) ||
		!strings.Contains(acts, "loopir/lower.go") || !strings.Contains(acts, "compiling static") {
		t.Errorf("actions:\n%s", acts)
	}
	if e := c.Entries[2]; e.Shapes != "x=f32[4, 8, 32]" || len(e.Unit().Guards.Dynamic) != 0 {
		t.Errorf("entry %s: %s, dynamic %v", e.ID, e.Shapes, e.Unit().Guards.Dynamic)
	}
}
