package exporter_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A forward that writes parameters through `.data` (MoCo's momentum update
// of the key encoder, examples/review6/moco_queue.py) runs the write on the
// real tensors while torch.fx traces: the graph does not hold it, the
// trace's parameters are the updated ones and PyTorch's reference run
// updates them a second time (the loss was that of two updates, 7.52287,
// gcdbg's that of one, 7.53530, and the run blamed PyTorch's reference).
// Refused, naming the parameter and what to change, the model left as it was.
func TestTraceTimeParameterWriteRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.json")
	b, err := exec.Command(python(t), "gcdbg_export.py", "testdata/data_momentum.py", "-o", out, "--runs", "0").CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2\n%s", err, b)
	}
	msg := string(b)
	for _, want := range []string{"'k.weight'", "while torch.fx traced it", "`.data`", "what to change: make the update outside forward"} {
		if !strings.Contains(msg, want) || strings.Contains(msg, "Traceback") {
			t.Errorf("message lacks %q (or shows a traceback):\n%s", want, msg)
		}
	}
}

// A model that fails in PyTorch's own reference run (testdata/reference_inplace.py:
// sigmoid's saved output changed in place, so backward raises) made the exporter print
// a Python traceback through compute_expected; it exits 2 with PyTorch's message and
// says the model fails in PyTorch itself.
func TestReferenceRunFailureIsAMessage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.json")
	b, err := exec.Command(python(t), "gcdbg_export.py", "testdata/reference_inplace.py", "-o", out, "--runs", "0").CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2\n%s", err, b)
	}
	msg := string(b)
	for _, want := range []string{"PyTorch's own run of 'M'", "modified by an inplace operation", "what to change: the model fails in PyTorch itself"} {
		if !strings.Contains(msg, want) || strings.Contains(msg, "Traceback") {
			t.Errorf("message lacks %q (or shows a traceback):\n%s", want, msg)
		}
	}
}
