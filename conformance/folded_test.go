package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A trace whose graph holds no op, only a constant as its output (what
// torch.fx leaves of a call it ran while tracing: a factory call of Python
// numbers the exporter's tracer does not capture), tests nothing of gcdbg:
// export_opinfo.py's _folded names why, so such a sample is refused; a trace
// with an op node is kept.
func TestExportRefusesFoldedCall(t *testing.T) {
	py := pythonWithTorch(t)
	dir := t.TempDir()
	folded := `{"graphs": [{"name": "g0", "nodes": [
	  {"name": "_tensor_constant0", "op": "get_attr", "target": "_tensor_constant0", "args": [], "kwargs": {}},
	  {"name": "output", "op": "output", "target": "output", "args": [{"node": "_tensor_constant0"}], "kwargs": {}}]}]}`
	op := `{"graphs": [{"name": "g0", "nodes": [
	  {"name": "t0", "op": "placeholder", "target": "t0", "args": [], "kwargs": {}},
	  {"name": "abs", "op": "call_function", "target": "torch.abs", "args": [{"node": "t0"}], "kwargs": {}},
	  {"name": "output", "op": "output", "target": "output", "args": [{"node": "abs"}], "kwargs": {}}]}]}`
	for name, text := range map[string]string{"folded.json": folded, "op.json": op} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code := "import sys; import export_opinfo as e; print(repr(e._folded(sys.argv[1]))); print(repr(e._folded(sys.argv[2])))"
	out, err := exec.Command(py, "-c", code, filepath.Join(dir, "folded.json"), filepath.Join(dir, "op.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 {
		t.Fatalf("output %q", out)
	}
	got, kept := lines[len(lines)-2], lines[len(lines)-1]
	if !strings.Contains(got, "holds no op") {
		t.Errorf("a constant-only trace: want a refusal naming why, got %s", got)
	}
	if kept != "''" {
		t.Errorf("a trace with an op: want no refusal, got %s", kept)
	}
}
