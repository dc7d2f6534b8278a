package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openTrace picks the reader by content: JSON traces and graph text alike,
// whatever the file is called.
func TestOpenTraceByContent(t *testing.T) {
	dir := t.TempDir()
	py, _ := os.ReadFile("../../examples/sin_cos.py")
	txt := filepath.Join(dir, "pasted.txt")
	os.WriteFile(txt, py, 0o644)
	for _, p := range []string{"../../fixtures/sin_cos.json", "../../examples/sin_cos.py", txt} {
		tr, err := openTrace(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(tr.Graphs) != 1 || tr.Graphs[0].Node("sin") == nil {
			t.Errorf("%s: graphs %v", p, tr.Graphs)
		}
	}
	bad := filepath.Join(dir, "notes.md")
	os.WriteFile(bad, []byte("hello"), 0o644)
	if _, err := openTrace(bad); err == nil || !strings.Contains(err.Error(), "neither a gcdbg trace") {
		t.Errorf("unknown content: %v", err)
	}
	broken := filepath.Join(dir, "graph.py")
	os.WriteFile(broken, []byte("def forward(self, x: \"f32[8]\"):\n    return (y,)\n"), 0o644)
	if _, err := openTrace(broken); err == nil || !strings.Contains(err.Error(), `graph.py:2:13: name "y" is not defined`) {
		t.Errorf("graph text error: %v", err)
	}
}
