package exporter_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/runner"
	"gcdbg/trace"
)

// The exporter's capture (issue 15, point 4), run with the system PyTorch:
// tuple unpacking of a traced shape and graph-break pieces that call
// modules held in globals export and match PyTorch; capture errors exit 2
// with what to change.

func python(t *testing.T) string {
	t.Helper()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import torch").Run(); err != nil {
		t.Skip("no PyTorch for /usr/bin/python3")
	}
	return py
}

func export(t *testing.T, model string) (string, string, error) {
	return exportWith(t, model, nil)
}

// exportWith exports testdata/model with extra environment variables
// (VARIANT=...) and arguments; the trace's path, the exporter's output.
func exportWith(t *testing.T, model string, env []string, args ...string) (string, string, error) {
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(model, ".py")+".json")
	cmd := exec.Command(python(t), append([]string{"gcdbg_export.py", filepath.Join("testdata", model), "-o", out, "--runs", "0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	return out, string(b), err
}

// runTrace loads the trace at path and runs it on dev once.
func runTrace(t *testing.T, path, dev string) *runner.Result {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
	if err != nil {
		t.Fatalf("%s on %s: %v", path, dev, err)
	}
	return res
}

func TestCaptureUnpackAndGlobalModules(t *testing.T) {
	for _, m := range []string{"unpack.py", "global_module.py"} {
		out, msg, err := export(t, m)
		if err != nil {
			t.Fatalf("%s: export failed: %v\n%s", m, err, msg)
		}
		tr, err := trace.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: "eager"})
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if !res.OK {
			t.Errorf("%s: does not match PyTorch:\n%s", m, res.Summary())
		}
		if m == "global_module.py" && len(res.Graphs) != 2 {
			t.Errorf("%s: %d graphs, want 2 (one per piece)", m, len(res.Graphs))
		}
	}
}

// Each names the user's line (the model file's frame of the traceback) and
// says what to change; a loop over a traced size (range(x.size(0)), a
// decoder's teacher-forcing loop) is told to loop over a Python int, not
// sent to graph_breaks, and a loop over a tensor is not told to loop over
// its unbind (which fails the same way); torch.distributions (a VAE's
// Normal(mu, std).rsample()) is told to write randn_like and the KL by hand,
// not sent to graph_breaks; pack_padded_sequence (whose layout depends on
// the lengths' values; fx fails inside it with "`__cuda_array_interface__`
// must be a dict") is told to run the RNN on the padded batch and mask;
// int() of a buffer (MoCo's queue pointer) is told to keep a Python int
// the training step advances; torch.autocast inside forward (which fx does
// not record: the trace computed float32 where PyTorch computed bfloat16)
// is told to export without it or write the casts out; .item() in forward
// (examples/review9 finding 3: exported, then refused by `gcdbg run` as an
// unsupported Tensor method) is told to return the tensor.
func TestCaptureErrorsSayWhatToChange(t *testing.T) {
	for m, want := range map[string][]string{
		"branch.py":            {"graph_breaks", "at branch.py:6 (`if x.sum() > 0:`)"},
		"loop.py":              {"a, b, c = x.unbind(0)", "range(T)", "at loop.py:6 (`return sum(r for r in x)`)"},
		"range_size.py":        {"range(T)", "Python int", "at range_size.py:8 (`for t in range(x.size(0)):`)"},
		"distributions_vae.py": {"torch.randn_like(std)", "KL term by hand", "at distributions_vae.py:13 (`q = torch.distributions.Normal("},
		"packed_gru.py":        {"pack_padded_sequence", "padded batch and mask", "at packed_gru.py:9 (`packed = pack_padded_sequence(", "): a packed sequence (torch.fx: "},
		"int_buffer.py":        {"queue pointer", "Python attribute that the training step advances", "at int_buffer.py:16 (`ptr = int(self.queue_ptr)`)"},
		"autocast_forward.py":  {"torch.autocast", "write the casts out", "at autocast_forward.py:16 (`logits = self.fc2(F.gelu(self.fc1(x)))`)"},
		"item_log.py":          {"calls .item()", "call .item() outside it", "(item_log.py:17: D_x = torch.sigmoid(out).mean().item())"},
	} {
		_, msg, err := export(t, m)
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("%s: exit %v, want 2\n%s", m, err, msg)
			continue
		}
		if !strings.Contains(msg, "what to change:") || strings.Contains(msg, "Traceback") || strings.Contains(msg, "use torch.unbind") {
			t.Errorf("%s: message does not say what to change (or shows a traceback, or sends a loop to unbind):\n%s", m, msg)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message lacks %q:\n%s", m, w, msg)
			}
		}
	}
}

// The compiled path (runner Device "cpu") re-executes the test binary as
// its kernel worker.
func TestMain(m *testing.M) {
	compiler.ServeIfWorker()
	code := m.Run()
	compiler.Shutdown()
	os.Exit(code)
}

// A tensor's dtype and rank are known while the tracer traces (each node's
// meta value, computed on the 'meta' device from the example inputs), as
// Dynamo knows them: torch.finfo(s.dtype).min (Hugging Face's and
// ESPnet's mask fill), guided-diffusion's `while len(e.shape) <
// len(h.shape)`, `B, *rest = x.shape` and len(x.size()) were refused by fx
// (examples/review8 finding 8); they now export and match PyTorch, eager
// and compiled. len() of a tensor is its first size, a traced value, and
// its refusal names the fix.
func TestDTypeAndRankAreKnownWhileTracing(t *testing.T) {
	for _, variant := range []string{"len", "finfo", "star", "lensize"} {
		out, msg, err := exportWith(t, "fx_len_finfo.py", []string{"VARIANT=" + variant})
		if err != nil {
			t.Errorf("%s: export failed: %v\n%s", variant, err, msg)
			continue
		}
		for _, dev := range []string{"eager", "cpu"} {
			if res := runTrace(t, out, dev); !res.OK || res.Graphs[0].Outputs[0].VsExpected == nil {
				t.Errorf("%s %s: does not match PyTorch's output:\n%s", variant, dev, res.Summary())
			}
		}
	}
	_, msg, err := exportWith(t, "fx_len_finfo.py", []string{"VARIANT=lentensor"})
	if err == nil {
		t.Fatal("lentensor: exported; len() of a traced tensor is a traced size fx cannot loop over")
	}
	if !strings.Contains(msg, "x.shape[0]") || strings.Contains(msg, ".tolist()") {
		t.Errorf("lentensor: the refusal does not name x.shape[0] (or gives the generic advice):\n%s", msg)
	}
}
