package main

import (
	"bytes"
	"os"
	"testing"

	"gcdbg/exporter"
)

// gcdbg bench run outside the repository still times PyTorch: the helper
// script comes from the binary (a new user's finding: it fell back to the
// recorded timings and said torch was not importable).
func TestBenchScriptOutsideTheRepository(t *testing.T) {
	t.Chdir(t.TempDir())
	script, err := benchScript()
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(script)
	got, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !bytes.Equal(got, exporter.BenchEager) {
		t.Fatalf("%s is not bench_eager.py (%d bytes)", script, len(got))
	}
}
