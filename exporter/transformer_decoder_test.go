package exporter_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"gcdbg/runner"
	"gcdbg/trace"
)

// nn.TransformerDecoderLayer and nn.Transformer (training, dropout 0.1,
// causal tgt_mask) are traced through instead of staying call_module
// leaves gcdbg refuses (examples/unseen2 finding 3): every dropout draw is
// recorded, and the eager run matches PyTorch on the output and every
// gradient.
func TestTransformerDecoderTracedThrough(t *testing.T) {
	for _, c := range []struct {
		model string
		grads int
	}{{"transformer_decoder.py", 18}, {"transformer_full.py", 64}} {
		out := filepath.Join(t.TempDir(), "m.json")
		if b, err := exec.Command(python(t), "gcdbg_export.py", filepath.Join("testdata", c.model), "-o", out, "--runs", "0").CombinedOutput(); err != nil {
			t.Fatalf("%s: export failed: %v\n%s", c.model, err, b)
		}
		tr, err := trace.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: "eager"})
		if err != nil {
			t.Fatalf("%s: %v", c.model, err)
		}
		if !res.OK {
			t.Errorf("%s: does not match PyTorch:\n%s", c.model, res.Summary())
		}
		g := res.Graphs[0]
		compared := 0
		for _, gr := range g.Grads {
			if gr.VsExpected != nil {
				compared++
			}
		}
		if compared != c.grads {
			t.Errorf("%s: %d gradients compared with PyTorch, want %d", c.model, compared, c.grads)
		}
	}
}
