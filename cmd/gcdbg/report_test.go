package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rep")
	var out, errb bytes.Buffer
	if rc := mainArgs([]string{"report", "../../fixtures/sin_cos.json", "-o", dir}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `id="u0-decomposed"`) || !strings.Contains(out.String(), "index.html") {
		t.Error("report lacks the decomposed stage, or the command did not say where it wrote")
	}
	errb.Reset()
	if rc := mainArgs([]string{"report", "../../fixtures/sin_cos.json"}, &out, &errb); rc != 2 || !strings.Contains(errb.String(), "-o DIR") {
		t.Errorf("no -o: exit %d, %q", rc, errb.String())
	}
	errb.Reset()
	if rc := mainArgs([]string{"report", "no/such.json", "-o", dir}, &out, &errb); rc != 2 {
		t.Errorf("missing trace: exit %d", rc)
	}
}
