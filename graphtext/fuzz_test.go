package graphtext

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gcdbg/ir"
)

// FuzzParse: no input makes the reader panic; every error is an *Error
// with a position or a file-level message; an accepted file gives valid
// graphs whose every input has a tensor or a value.
func FuzzParse(f *testing.F) {
	old := maxInitElements
	maxInitElements = 1 << 16
	f.Cleanup(func() { maxInitElements = old })
	for _, sg := range sampleGraphsOrNone(f) {
		f.Add([]byte(withSizes(sg)))
	}
	for _, c := range errorCases {
		f.Add([]byte(c.src))
	}
	f.Add([]byte(features))
	f.Add([]byte(valueInput))
	examples, _ := filepath.Glob("../examples/*.py")
	for _, p := range examples {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(data, dir, "fuzz.py")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not a *graphtext.Error: %v", err, err)
			}
			return
		}
		for _, g := range tr.Graphs {
			if err := g.Validate(); err != nil {
				t.Fatalf("accepted graph fails Validate: %v", err)
			}
			for _, n := range g.Nodes {
				if (n.Op == ir.Placeholder && !n.Meta.HasValue || n.Op == ir.GetAttr) && g.Tensors[n.Target] == nil {
					t.Fatalf("node %q has no tensor", n.Name)
				}
			}
		}
	})
}

// sampleGraphsOrNone is sampleGraphs without skipping when the samples are absent.
func sampleGraphsOrNone(f *testing.F) (out []sampleGraph) {
	if m, _ := filepath.Glob(filepath.Join(samplesDir(), "*.log")); len(m) == 0 {
		return nil
	}
	return sampleGraphs(f)
}
