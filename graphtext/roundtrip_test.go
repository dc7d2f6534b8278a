package graphtext

import (
	"path/filepath"
	"testing"

	"gcdbg/interp"
	"gcdbg/ir"
	"gcdbg/stages"
	"gcdbg/trace"
)

// gcdbg's own Readable printer is graph text too: a fixture's normalized
// graph printed and read back runs to the same numbers on the same inputs.
func TestReadableRoundTrip(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			tr, err := trace.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			units, err := stages.Run(tr, "normalized")
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range units {
				g := u.Normalized
				text := ir.Readable(g)
				for _, n := range g.Placeholders() {
					if n.Meta.Tensor == nil {
						t.Skipf("input %q is a Python value, which Readable prints without it", n.Name)
					}
				}
				back, err := Parse([]byte(text), t.TempDir(), "readable.py")
				if err != nil {
					t.Fatalf("%v\n%s", err, text)
				}
				bu, err := stages.Run(back, "normalized")
				if err != nil {
					t.Fatalf("%v\n%s", err, text)
				}
				in := interp.Inputs{}
				for _, n := range g.Nodes {
					if n.Op == ir.Placeholder || n.Op == ir.GetAttr {
						var v ir.Value
						if td := g.Tensors[n.Target]; td != nil {
							v = td.T
						} else if n.Meta.HasValue {
							v = n.Meta.Value
						}
						if v != nil {
							in[n.Target] = v
							if n.Op == ir.Placeholder {
								// Readable names an input by its node name
								// (input_1 for the target input).
								in[n.Name] = v
							}
						}
					}
				}
				want, err := interp.Run(g, in)
				if err != nil {
					t.Fatal(err)
				}
				got, err := interp.Run(bu[0].Normalized, in)
				if err != nil {
					t.Fatalf("%v\n%s", err, text)
				}
				if len(got) != len(want) {
					t.Fatalf("%d outputs, want %d", len(got), len(want))
				}
				for i := range want {
					a, _ := interp.AsTensor(got[i])
					b, _ := interp.AsTensor(want[i])
					if a == nil || b == nil {
						continue
					}
					if c := interp.Compare(a, b, interp.DefaultTolerance(b.DType)); !c.Match {
						t.Errorf("graph %s output %d differs: %+v", g.Name, i, c)
					}
				}
			}
		})
	}
}
