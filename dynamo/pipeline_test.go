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
// parses the size into an expression, so the entry is dynamic, its
// programs compute 8*ks0 from ks0, and the manifest's sizes say so.
func TestDynamicAffineSymbol(t *testing.T) {
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
	e := c.Entries[2]
	if e.Shapes != "x=f32[s0, 8, 32]" || len(e.Unit().Guards.Dynamic) != 1 {
		t.Fatalf("entry %s: %s, dynamic %v; actions:\n%s", e.ID, e.Shapes, e.Unit().Guards.Dynamic, strings.Join(call.Actions, "\n"))
	}
	u := e.Unit()
	if got := ir.Readable(u.Partition.Forward); !strings.Contains(got, `attn_c_attn_view: "f32[8*s0, 32]"`) {
		t.Errorf("forward graph lacks the 8*s0 view:\n%s", got)
	}
	affine := 0
	for _, lp := range u.Programs {
		m := lp.Source.Manifest
		if len(m.Symbols) != 1 || m.Symbols[0] != "ks0" {
			t.Errorf("%s program: symbols %v", lp.Role, m.Symbols)
		}
		for _, b := range m.Buffers {
			for _, s := range b.Sizes {
				if s == "8*ks0" {
					affine++
				}
			}
		}
	}
	if affine == 0 {
		t.Errorf("no manifest buffer is sized 8*ks0")
	}
}

// Sizes the loop IR cannot take are refused before lowering, naming the
// graph, node and dim: one that does not parse, and a symbol that is not
// the entry's.
func TestKnownSymbolsRefuses(t *testing.T) {
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
	dims := []SymDim{{Input: "x", Dim: 0, Sym: "s0"}}
	if err := knownSymbols(u, dims); err != nil {
		t.Fatalf("the entry's own sizes: %v", err)
	}
	n := u.Partition.Forward.Nodes[0]
	old := n.Meta.Tensor
	defer func() { n.Meta.Tensor = old }()
	for sym, want := range map[string]string{"8*s0 +": `dim 0: size "8*s0 +"`, "2*s1": "s1 is not a symbol of this entry"} {
		m := *old
		m.Shape = append(ir.Shape{}, old.Shape...)
		m.Shape[0].Sym = sym
		n.Meta.Tensor = &m
		err := knownSymbols(u, dims)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `node "`+n.Name+`"`) {
			t.Errorf("size %s: %v", sym, err)
		}
	}
}
