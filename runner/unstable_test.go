package runner

import (
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/tensor"
	"gcdbg/verdict"
)

// A value listed in expected.unstable has no PyTorch reference (expected()
// gives nil, so nothing is compared); the graph says PyTorch's reference
// disagrees with itself, once however often it is judged; and a mismatch
// against PyTorch elsewhere in the graph says to suspect PyTorch's value
// first (moe_topk: grad of w1 unstable, grad of norm.weight's garbage the
// same in both runs).
func TestUnstableReference(t *testing.T) {
	g := tensor.New(tensor.Float32, 2)
	r := &references{exp: &ir.Expected{
		Outputs:  []*tensor.Tensor{g},
		Grads:    map[string]*tensor.Tensor{"w1": g, "norm.weight": g},
		Unstable: map[string]string{"grads/w1": "2 of 2 elements differ"},
	}}
	if r.expected(what{kind: "grad", name: "w1"}) != nil {
		t.Error("PyTorch's unstable grad of w1 is still a reference")
	}
	if r.expected(what{kind: "grad", name: "norm.weight"}) == nil || r.expected(what{kind: "output", index: 0}) == nil {
		t.Error("a stable value lost its reference")
	}
	gr := &GraphResult{
		Outputs: []OutputResult{{Index: 0, VsExpected: &verdict.Judgement{Match: true}}},
		Grads: []GradResult{{Name: "w1"},
			{Name: "norm.weight", VsExpected: &verdict.Judgement{Why: "numbers"}, VsEager: &verdict.Judgement{Match: true}}},
	}
	noteUnstable(r, gr)
	noteUnstable(r, gr) // a second backend
	if n := strings.Count(gr.NotComparedWithPyTorch, "PyTorch's reference disagrees with itself"); n != 1 ||
		!strings.Contains(gr.NotComparedWithPyTorch, "grad of w1 (2 of 2 elements differ)") {
		t.Errorf("not_compared_with_pytorch: %q", gr.NotComparedWithPyTorch)
	}
	why := gr.Grads[1].VsExpected.Why
	if strings.Count(why, "suspect PyTorch's value first") != 1 || !strings.HasSuffix(why, "numbers") {
		t.Errorf("norm.weight's mismatch: %q", why)
	}
	if gr.Outputs[0].VsExpected.Why != "" {
		t.Errorf("a match got a note: %q", gr.Outputs[0].VsExpected.Why)
	}
}
