package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `gcdbg run model.py` on a model file for the exporter (it defines make())
// says to export it first with the exporter, exit 2, instead of where the
// graph-text parser stopped (examples/unseen/README.md, "Smaller").
func TestRunExporterModelFileSaysExport(t *testing.T) {
	var out, errb bytes.Buffer
	code := safeMain([]string{"run", "../../examples/unseen/vae.py"}, &out, &errb)
	msg := errb.String()
	if code != 2 {
		t.Errorf("exit %d, want 2\n%s", code, msg)
	}
	for _, want := range []string{"vae.py: a PyTorch model file for the exporter (it defines make())",
		"/usr/bin/python3 exporter/gcdbg_export.py ../../examples/unseen/vae.py -o vae.json", "gcdbg run vae.json"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "expected `def forward") {
		t.Errorf("message shows the graph-text parser's error:\n%s", msg)
	}
	// graph text that fails to parse and defines no make() keeps the parser's error
	bad := filepath.Join(t.TempDir(), "model.py")
	os.WriteFile(bad, []byte("import torch\nx = 1\n"), 0o644)
	if _, err := openTrace(bad); err == nil || !strings.Contains(err.Error(), "expected `def forward") {
		t.Errorf("graph text without make(): %v", err)
	}
}
