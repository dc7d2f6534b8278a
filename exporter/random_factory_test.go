package exporter_test

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gcdbg/runner"
	"gcdbg/trace"
)

// A random draw whose sizes are Python ints (`x + torch.rand(3)`,
// `torch.randn(2, 4)`) or a traced shape (`torch.randn(mu.shape)`), and
// torch.randperm(n) (mixup's x[torch.randperm(x.size(0))]), is a
// graph node whose draw the reference run records (expected.random), not a
// constant fx froze while tracing with numbers other than the reference
// run's (examples/unseen/README.md, "What went wrong" 1): gcdbg replays
// the draws and its eager and compiled runs match PyTorch elementwise.
func TestFactoryDrawsRecordedAndReplayed(t *testing.T) {
	repro := "../examples/unseen/repro/"
	for _, c := range []struct {
		model string
		draws string // the nodes expected.random records
		outs  int
	}{
		{"rand_const.py", "rand rand_1 randn randn_1", 2},
		{repro + "rand_const_min.py", "rand", 1},
		{repro + "vae_randn_const.py", "randn", 1},
		{repro + "vae_randn.py", "randn", 1},
		{"randperm_mixup.py", "randperm randperm_1", 2},
	} {
		path := c.model
		if !strings.Contains(path, "/") {
			path = filepath.Join("testdata", path)
		}
		out := filepath.Join(t.TempDir(), "m.json")
		if b, err := exec.Command(python(t), "gcdbg_export.py", path, "-o", out, "--runs", "0").CombinedOutput(); err != nil {
			t.Fatalf("%s: export failed: %v\n%s", c.model, err, b)
		}
		r := readRaw(t, out)
		var got []string
		for k := range r.Graphs[0].Expected.Random {
			got = append(got, k)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != c.draws {
			t.Errorf("%s: expected.random records %v, want %s", c.model, got, c.draws)
		}
		tr, err := trace.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		for name := range tr.Graphs[0].Tensors {
			if strings.HasPrefix(name, "_tensor_constant") {
				t.Errorf("%s: a draw was frozen into the constant %s", c.model, name)
			}
		}
		for _, dev := range []string{"eager", "cpu"} {
			res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
			if err != nil {
				t.Fatalf("%s %s: %v", c.model, dev, err)
			}
			if !res.OK {
				t.Errorf("%s %s: does not match PyTorch:\n%s", c.model, dev, res.Summary())
			}
			g := res.Graphs[0]
			compared := 0
			for _, o := range g.Outputs {
				if o.VsExpected != nil {
					compared++
				}
			}
			if compared != c.outs || g.NotComparedWithPyTorch != "" {
				t.Errorf("%s %s: %d of %d outputs compared with PyTorch (%s)", c.model, dev, compared, c.outs, g.NotComparedWithPyTorch)
			}
		}
	}
}

// A draw the tracer cannot record (x + torch.empty(3).uniform_(), run once
// while fx traces) is refused, exit 2, naming the node and the user's line
// and saying what to change. torch.arange of a traced size is a graph node
// (factory_const_test.go), but not an arange bound before tracing, which
// fx fails on: the message says to call torch.arange or use a buffer.
func TestCaptureRefusesFrozenDraw(t *testing.T) {
	for m, wants := range map[string][]string{
		"rand_frozen.py": {"draws random numbers while torch.fx traces it", "node 'add'",
			"rand_frozen.py:6: return x + torch.empty(3).uniform_()", "what to change:", "torch.randn_like"},
		"arange_bound.py": {"arange()", "what to change:", "Call torch.arange", "register_buffer", "self.pos[:t]"},
	} {
		_, msg, err := export(t, m)
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("%s: exit %v, want 2\n%s", m, err, msg)
			continue
		}
		for _, w := range wants {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message lacks %q:\n%s", m, w, msg)
			}
		}
		if strings.Contains(msg, "Traceback") || strings.Contains(msg, "data-dependent") {
			t.Errorf("%s: a traceback or the generic text:\n%s", m, msg)
		}
	}
}
