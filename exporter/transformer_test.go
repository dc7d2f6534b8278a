package exporter_test

import (
	"os/exec"
	"strings"
	"testing"
)

// A drawing nn.MultiheadAttention the exporter cannot trace through (kdim /
// vdim) is refused with exit 2 and what to change, not a traceback. (The
// traced-through Transformer layers themselves are checked end to end by
// cmd/gcdbg's real2_tenc model against PyTorch.)
func TestCaptureDrawingAttentionRefusal(t *testing.T) {
	_, msg, err := export(t, "mha_kdim_dropout.py")
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2\n%s", err, msg)
	}
	for _, want := range []string{"nn.MultiheadAttention(dropout=0.1) in training", "kdim/vdim", "what to change:", "dropout=0"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "Traceback") {
		t.Errorf("message shows a traceback:\n%s", msg)
	}
}

// A model that fails on its own example inputs is reported as the model's
// error with the node, the user's line and PyTorch's message, exit 2, and
// no traceback (ShapeProp prints two).
func TestCaptureModelErrorNamesTheLine(t *testing.T) {
	_, msg, err := export(t, "bad_shape.py")
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2\n%s", err, msg)
	}
	for _, want := range []string{"fails on its example inputs at node 'fc'", "bad_shape.py:", "self.fc(x.flatten(1))",
		"mat1 and mat2 shapes cannot be multiplied", "what to change:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "Traceback") || strings.Contains(msg, "ShapeProp error") {
		t.Errorf("message shows a traceback:\n%s", msg)
	}
}
