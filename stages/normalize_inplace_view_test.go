package stages

import (
	"strings"
	"testing"

	"gcdbg/conformance"
	"gcdbg/trace"
)

// x.unsqueeze_(0) applied to graph input t0 itself (PyTorch-exported
// unsqueeze.inplace/int64/0: the caller's tensor changes shape) is refused,
// naming the input, as a refusal the conformance harness counts as such; on
// a clone it runs (conformance/testdata/traces: unsqueeze.inplace/float32/0).
func TestInplaceViewOnGraphInputRefused(t *testing.T) {
	tr, err := trace.Load("testdata/inplace_view/unsqueeze_input.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "normalized")
	if err == nil {
		t.Fatal("normalized a graph that changes an input's shape in place")
	}
	if len(units) != 1 || units[0].Failure == nil || units[0].Failure.Node != "unsqueeze_" {
		t.Fatalf("want a failure at node unsqueeze_, got %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, `graph input "t0"`) || !conformance.IsRefusal(msg) {
		t.Errorf("the refusal should name input t0 and read as a refusal: %s", msg)
	}
}
