package exporter_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"gcdbg/runner"
	"gcdbg/trace"
)

// x.device and x.to(y.dtype) as users write them (testdata/tensor_attrs.py,
// examples/unseen3): torch.arange(..., device=idx.device) was refused at
// normalization ("getattr(\"device\") is not supported"), and
// mask.unsqueeze(-1).to(x.dtype) was inferred with the broadcast shape of
// mask and x ("gcdbg infers [3, 6, 4] but the trace says [3, 6, 1]"). Both
// now run, eager and compiled, and match PyTorch's output and grads.
func TestTensorAttrsDeviceAndDTypeMatchPyTorch(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tensor_attrs.json")
	if b, err := exec.Command(python(t), "gcdbg_export.py", "testdata/tensor_attrs.py", "-o", out, "--runs", "0").CombinedOutput(); err != nil {
		t.Fatalf("export failed: %v\n%s", err, b)
	}
	tr, err := trace.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range []string{"eager", "cpu"} {
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		if !res.OK {
			t.Errorf("%s: does not match PyTorch:\n%s", dev, res.Summary())
		}
		g := res.Graphs[0]
		outs, grads := 0, 0
		for _, o := range g.Outputs {
			if o.VsExpected != nil {
				outs++
			}
		}
		for _, gr := range g.Grads {
			if gr.VsExpected != nil {
				grads++
			}
		}
		// wte, wpe, ln.weight, ln.bias
		if outs != 1 || grads != 4 || g.NotComparedWithPyTorch != "" {
			t.Errorf("%s: compared with PyTorch: %d outputs, %d grads, want 1 and 4 (%s)", dev, outs, grads, g.NotComparedWithPyTorch)
		}
	}
}
