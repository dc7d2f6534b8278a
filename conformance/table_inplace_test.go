package conformance

import (
	"bytes"
	"strings"
	"testing"
)

// An in-place variant's refusals are tied to its own out-of-scope entry
// (squeeze_ for squeeze.inplace) before its op's; the op's other variants
// keep the op's entry, or none.
func TestInplaceVariantOutOfScopeReason(t *testing.T) {
	outs := []Outcome{
		{ID: "squeeze.inplace/int64/0", OpInfo: "squeeze.inplace", DType: "int64", Status: Refused, Reason: "in-place squeeze_ on a graph input is not supported"},
		{ID: "squeeze/int64/0", OpInfo: "squeeze", DType: "int64", Status: Refused, Reason: "x"},
		{ID: "grid_sample.inplace/float32/0", OpInfo: "nn.functional.grid_sample.inplace", DType: "float32", Status: Refused, Reason: "y"},
	}
	cov := map[string]string{"squeeze_": "on a graph input: why", "grid_sample": "not modeled"}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, RunInfo{OutOfScope: cov}, outs); err != nil {
		t.Fatal(err)
	}
	row := func(name string) string {
		for _, ln := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(ln, "| "+name+" |") {
				return ln
			}
		}
		t.Fatalf("no row %s in\n%s", name, b.String())
		return ""
	}
	if r := row("squeeze.inplace"); !strings.Contains(r, "out of scope (`gcdbg ops --coverage`): on a graph input: why") {
		t.Errorf("squeeze.inplace row not tied to squeeze_'s entry: %s", r)
	}
	if r := row("squeeze"); strings.Contains(r, "out of scope") {
		t.Errorf("squeeze row took the in-place variant's entry: %s", r)
	}
	if r := row("nn.functional.grid_sample.inplace"); !strings.Contains(r, "out of scope (`gcdbg ops --coverage`): not modeled") {
		t.Errorf("an in-place variant without its own entry keeps its op's: %s", r)
	}
}
