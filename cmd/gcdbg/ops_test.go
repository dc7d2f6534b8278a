package main

import (
	"strings"
	"testing"
)

// gcdbg ops --coverage lists all 157 core ATen ops, none missing.
func TestOpsCoverage(t *testing.T) {
	code, out, errs := run("ops", "--coverage")
	if code != 0 {
		t.Fatalf("exit %d (1 = an op neither supported nor out of scope), stderr %s\n%s", code, errs, out)
	}
	for _, want := range []string{"157 ops:", "cumsum", "decomposed into core ops", "out of scope", "nonzero"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code, _, _ := run("ops", "--bogus"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
}
