package stages

import (
	"strings"
	"testing"

	"gcdbg/conformance"
	"gcdbg/ir"
	"gcdbg/tensor"
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

// The torch.nn.functional ops marked out of scope are not canonical ops
// (an entry for an op that has become supported is stale) and say why.
func TestFunctionalOutOfScope(t *testing.T) {
	rows := FunctionalOutOfScope()
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range rows {
		n := &ir.Node{Name: "x", Op: ir.CallFunction, Target: "torch.nn.functional." + r.Name}
		if d, _, ok := canonicalFor(n); ok {
			t.Errorf("%s: marked out of scope but it normalizes to %s; drop the entry", r.Name, d.Name)
		}
		if strings.TrimSpace(r.How) == "" {
			t.Errorf("%s: out of scope without a reason", r.Name)
		}
	}
	if got := conformance.ParseCoverage(FunctionalOutOfScopeTable()); len(got) != len(rows) {
		t.Errorf("the table's out-of-scope lines read back as %d entries, want %d", len(got), len(rows))
	}
}

// The argument values marked out of scope belong to ops gcdbg takes (an
// entry for an op it does not take belongs in outOfScopeFunctional), and
// the conformance table reads each back with its reason.
func TestArgumentOutOfScope(t *testing.T) {
	got := conformance.ParseCoverage(ArgumentOutOfScopeTable())
	if len(got) != len(outOfScopeArguments) || len(got) == 0 {
		t.Fatalf("the table's lines read back as %d entries, want %d", len(got), len(outOfScopeArguments))
	}
	for name, why := range outOfScopeArguments {
		n := &ir.Node{Name: "x", Op: ir.CallFunction, Target: "torch.nn.functional." + name}
		if _, _, ok := canonicalFor(n); !ok {
			t.Errorf("%s: not an op gcdbg takes; list it as out of scope itself", name)
		}
		if got[name] != why {
			t.Errorf("%s: read back %q, want %q", name, got[name], why)
		}
	}
	// one_hot(num_classes=-1) is refused, not computed
	d := ir.Lookup("aten.one_hot")
	x := tensor.FromInts(tensor.Int64, []int{3}, []int64{0, 2, 1})
	if _, err := d.Eval(ir.Args{Op: d, V: []ir.Value{x, int64(-1)}}); err == nil || !strings.Contains(err.Error(), "depend on the data") {
		t.Errorf("one_hot(x, -1): err %v, want a refusal naming the data-dependent shape", err)
	}
	if r, err := d.Eval(ir.Args{Op: d, V: []ir.Value{x, int64(3)}}); err != nil || r.(*tensor.Tensor).Shape[1] != 3 {
		t.Errorf("one_hot(x, 3): %v, %v", r, err)
	}
}
