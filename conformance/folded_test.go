package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A sample whose call torch.fx runs while tracing (arange with Python
// numbers: no tensor argument) leaves a trace with no op, only a constant
// output; comparing it would test nothing of gcdbg, so the exporter refuses
// it, while a sample with a tensor argument (abs) is exported as a trace.
func TestExportRefusesFoldedCall(t *testing.T) {
	py := pythonWithTorch(t)
	dir := t.TempDir()
	ids := filepath.Join(dir, "ids")
	if err := os.WriteFile(ids, []byte("arange/float32/3\nabs/float32/0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "export_opinfo.py", "-o", dir, "--ids", ids).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, ln := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(ln), &rec); err != nil {
			t.Fatal(err)
		}
		got[rec["id"].(string)] = rec
	}
	if r, _ := got["arange/float32/3"]["refused"].(string); !strings.Contains(r, "holds no op") {
		t.Errorf("arange/float32/3: want a refusal naming the folded call, got %v", got["arange/float32/3"])
	}
	if tr, _ := got["abs/float32/0"]["trace"].(string); tr == "" {
		t.Errorf("abs/float32/0: want a trace, got %v", got["abs/float32/0"])
	}
}
