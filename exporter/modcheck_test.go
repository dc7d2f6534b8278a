package exporter_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/exporter"
	"gcdbg/runner"
)

// Modules the exporter refuses before tracing (examples/unseen2/README.md,
// findings 3 and 6): a module with a hook torch.fx would drop (a forward
// hook that changes the output), and nn.LSTM(num_layers=2,
// dropout=0.2) in training, refused at export with the very text `gcdbg
// run` gives (module_refusals.json, one home for both).
func TestExportRefusesHooksAndLayerDropout(t *testing.T) {
	repro := "../examples/unseen2/repro/"
	for _, c := range []struct {
		model string
		want  []string
	}{
		{"../../../exporter/testdata/forward_hook.py", []string{"module '2'", "a forward hook", "<lambda>", "what to change:", ".remove()"}},
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

// nn.utils.weight_norm and spectral_norm on a Linear or Conv are traced,
// not refused: weight = v * (g / ||v||), or spectral_norm's own
// compute_weight (power iteration under no_grad writing weight_u/weight_v,
// then weight_orig / sigma), become graph nodes
// (gcdbg_modcheck.traced_weight_norm) and gcdbg's grads and buffer updates
// match PyTorch's (examples/unseen2/repro/weight_norm.py and
// spectral_norm.py failed at `gcdbg run` with "aten.linear: argument
// weight: expected a tensor, got None").
func TestWeightNormTraced(t *testing.T) {
	for _, c := range []struct {
		model string
		grads []string // among the grads compared with PyTorch
		dev   string
	}{
		{"../examples/unseen2/repro/weight_norm.py", []string{"0.weight_g", "0.weight_v", "0.bias"}, "cpu"},
		{"testdata/weight_norm_mix.py", []string{"c1.weight_g", "c1.weight_v", "c2.weight_g", "c2.weight_v", "fc.weight_g", "fc.weight_v"}, "eager"},
		// spectral_norm in training: the power iteration under no_grad updates weight_u/weight_v
		{"../examples/unseen2/repro/spectral_norm.py", []string{"0.weight_orig", "0.bias"}, "cpu"},
	} {
		tr := exportLoad(t, c.model)
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: c.dev})
		if err != nil {
			t.Fatalf("%s: %v", c.model, err)
		}
		if !res.OK {
			t.Errorf("%s: does not match PyTorch:\n%s", c.model, res.Summary())
		}
		if strings.Contains(c.model, "spectral") {
			n := 0
			for _, b := range res.Graphs[0].Buffers {
				if (b.Name == "0.weight_u" || b.Name == "0.weight_v") && b.VsExpected != nil && b.VsExpected.Match {
					n++
				}
			}
			if n != 2 {
				t.Errorf("%s: weight_u/weight_v updates not both matched with PyTorch: %+v", c.model, res.Graphs[0].Buffers)
			}
		}
		compared := map[string]bool{}
		for _, g := range res.Graphs[0].Grads {
			if g.VsExpected != nil && g.VsExpected.Match {
				compared[g.Name] = true
			}
		}
		for _, g := range c.grads {
			if !compared[g] {
				t.Errorf("%s: grad of %s not compared with PyTorch (compared: %v)", c.model, g, compared)
			}
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
