package exporter_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/runner"
	"gcdbg/trace"
)

// `with torch.no_grad():` inside forward (examples/unseen2/README.md,
// finding 1): torch.fx records no grad mode, so the exporter marks the
// nodes made with grad mode off and detaches their values where they leave
// the block, and the sources of in-place writes inside it (an EMA buffer
// update). Without the detach nodes gcdbg differentiated through the block
// and reported MISMATCH on correct models (no_grad_target: grad of
// online.weight; no_grad_ema: grad of fc.weight, rmse 0.13). A parameter
// PyTorch gives no gradient (the teacher's) is listed in expected.no_grad,
// not written as zeros in expected.grads, and gcdbg's gradient is compared
// with the zero that None means.
func TestNoGradBlocksDetached(t *testing.T) {
	repro := "../examples/unseen2/repro/"
	for _, c := range []struct {
		model    string
		compiled bool     // also the compiled run
		noGrad   []string // parameters PyTorch gives no gradient
		detaches int      // at least this many detach nodes
	}{
		{repro + "no_grad_target.py", true, nil, 1},
		{repro + "no_grad_teacher.py", true, []string{"teacher.weight", "teacher.bias"}, 1},
		{"testdata/no_grad_ema.py", false, nil, 1},
		// @torch.no_grad() method, set_grad_enabled(False), enable_grad inside it, inference_mode
		{"testdata/no_grad_forms.py", false, []string{"b.weight", "b.bias"}, 3},
		// items of a tuple made inside the block (LSTM, chunk), indexed outside it
		{"testdata/no_grad_tuple.py", false, []string{"rnn.weight_ih_l0", "rnn.weight_hh_l0", "rnn.bias_ih_l0", "rnn.bias_hh_l0"}, 2},
	} {
		tr := exportLoad(t, c.model)
		g := tr.Graphs[0]
		detaches := 0
		for _, n := range g.Nodes {
			if n.Target == "detach" {
				detaches++
			}
		}
		if detaches < c.detaches {
			t.Errorf("%s: %d detach nodes in the trace, want at least %d", c.model, detaches, c.detaches)
		}
		for _, p := range c.noGrad {
			if g.Expected == nil || g.Expected.Grads[p] != nil || !g.Expected.NoGrad[p] {
				t.Errorf("%s: expected.grads holds %s, or expected.no_grad does not list it (PyTorch gives it no gradient)", c.model, p)
			}
		}
		if g.Expected == nil || len(g.Expected.Grads) == 0 {
			t.Fatalf("%s: no expected grads", c.model)
		}
		if len(g.Expected.Unstable) != 0 { // two identical PyTorch runs agree
			t.Errorf("%s: expected.unstable %v", c.model, g.Expected.Unstable)
		}
		devs := []string{"eager"}
		if c.compiled {
			devs = append(devs, "cpu")
		}
		for _, dev := range devs {
			res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
			if err != nil {
				t.Fatalf("%s %s: %v", c.model, dev, err)
			}
			if !res.OK {
				t.Errorf("%s %s: does not match PyTorch:\n%s", c.model, dev, res.Summary())
			}
			compared := 0
			for _, gr := range res.Graphs[0].Grads {
				if gr.VsExpected != nil {
					compared++
				}
			}
			// PyTorch's None is a zero gcdbg's gradient is compared with
			if compared != len(g.Expected.Grads)+len(c.noGrad) {
				t.Errorf("%s %s: %d grads compared with PyTorch, the trace has %d and %d without one", c.model, dev, compared, len(g.Expected.Grads), len(c.noGrad))
			}
		}
	}
}

// exportLoad exports model (a path from exporter/) with the system PyTorch
// and loads the trace.
func exportLoad(t *testing.T, model string) *trace.Trace {
	t.Helper()
	out := filepath.Join(t.TempDir(), "m.json")
	if b, err := exec.Command(python(t), "gcdbg_export.py", model, "-o", out, "--runs", "0").CombinedOutput(); err != nil {
		t.Fatalf("%s: export failed: %v\n%s", model, err, b)
	}
	tr, err := trace.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// What a no-grad block cannot be cut into: a tuple made inside it and
// returned whole (not one value to detach), and an in-place write into a
// parameter (an EMA of weights in forward; the exporter refused it before
// as "the model's own error", then exported it and gcdbg said MISMATCH).
// Refused, naming the node, the line and what to change.
func TestNoGradBlockRefusals(t *testing.T) {
	for _, c := range []struct{ model, env, want string }{
		{"no_grad_tuple.py", "NO_GRAD_TUPLE_WHOLE=1", "what to change: unpack them inside the block"},
		{"no_grad_param_ema.py", "", "what to change: update the parameter outside forward"},
	} {
		out := filepath.Join(t.TempDir(), "m.json")
		cmd := exec.Command(python(t), "gcdbg_export.py", "testdata/"+c.model, "-o", out, "--runs", "0")
		cmd.Env = append(os.Environ(), c.env)
		b, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("%s: exit %v, want 2\n%s", c.model, err, b)
			continue
		}
		msg := string(b)
		if !strings.Contains(msg, "no-grad block") || !strings.Contains(msg, c.want) || !strings.Contains(msg, c.model+":") || strings.Contains(msg, "Traceback") {
			t.Errorf("%s: message does not name the block, the line and what to change (or shows a traceback):\n%s", c.model, msg)
		}
	}
}
