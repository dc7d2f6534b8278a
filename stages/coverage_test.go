package stages

import (
	"strings"
	"testing"
)

// Every op of PyTorch 2.6's core ATen list is supported (a captured
// torch.ops.aten call of it normalizes to a canonical op) or explicitly out
// of scope with a reason; an out-of-scope entry that has become supported,
// or that names no op of the list, is stale.
func TestCoreATenCoverage(t *testing.T) {
	rows := Coverage()
	if len(rows) != 157 {
		t.Errorf("%d ops in core_aten_2_6.txt, want 157", len(rows))
	}
	listed := map[string]bool{}
	supported := 0
	for _, r := range rows {
		listed[r.Name] = true
		switch r.Status {
		case CoverageSupported:
			supported++
			if r.Op == "" || r.How == "" {
				t.Errorf("%s: supported without an op or how", r.Name)
			}
		case CoverageOutOfScope:
			if strings.TrimSpace(r.How) == "" {
				t.Errorf("%s: out of scope without a reason", r.Name)
			}
			if d := coverageOp(r.Name, r.Overloads); d != nil {
				t.Errorf("%s: marked out of scope but it normalizes to %s; drop the entry", r.Name, d.Name)
			}
		default:
			t.Errorf("%s: neither supported nor marked out of scope with a reason", r.Name)
		}
	}
	for name := range outOfScope {
		if !listed[name] {
			t.Errorf("outOfScope names %q, which is not in the core ATen list", name)
		}
	}
	t.Logf("%d of %d core ATen ops supported", supported, len(rows))
}
