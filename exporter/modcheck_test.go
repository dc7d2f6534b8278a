package exporter_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/exporter"
)

// Modules the exporter refuses before tracing (examples/unseen2/README.md,
// findings 3 and 6): a module with a hook torch.fx would drop
// (nn.utils.weight_norm / spectral_norm are forward pre-hooks that compute
// .weight; exported silently, `gcdbg run` failed on "aten.linear: argument
// weight: expected a tensor, got None"), and nn.LSTM(num_layers=2,
// dropout=0.2) in training, refused at export with the very text `gcdbg
// run` gives (module_refusals.json, one home for both).
func TestExportRefusesHooksAndLayerDropout(t *testing.T) {
	repro := "../examples/unseen2/repro/"
	for _, c := range []struct {
		model string
		want  []string
	}{
		{"weight_norm.py", []string{"module '0'", "forward pre-hook", "WeightNorm", "what to change:", "torch.nn.utils.remove_weight_norm(module)"}},
		{"spectral_norm.py", []string{"module '0'", "forward pre-hook", "SpectralNorm", "what to change:", "torch.nn.utils.remove_spectral_norm(module)"}},
		{"lstm_dropout.py", []string{"module 'rnn'", exporter.Refusal("rnn_dropout", "kind", "LSTM", "dropout", "0.2")}},
	} {
		out := filepath.Join(t.TempDir(), "m.json")
		b, err := exec.Command(python(t), "gcdbg_export.py", repro+c.model, "-o", out, "--runs", "0").CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("%s: exit %v, want 2\n%s", c.model, err, b)
			continue
		}
		msg := string(b)
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message lacks %q:\n%s", c.model, w, msg)
			}
		}
		if strings.Contains(msg, "Traceback") {
			t.Errorf("%s: a traceback:\n%s", c.model, msg)
		}
	}
}

// Every message the normalizer takes from module_refusals.json is there,
// its placeholders filled.
func TestModuleRefusals(t *testing.T) {
	for _, c := range [][]string{{"rnn_dropout", "kind", "GRU", "dropout", "0.5"}, {"lstm_proj_size", "proj_size", "2"}} {
		got := exporter.Refusal(c[0], c[1:]...)
		if strings.Contains(got, "has no message") || strings.Contains(got, "{") || !strings.Contains(got, c[len(c)-1]) {
			t.Errorf("%s: %q", c[0], got)
		}
	}
}
