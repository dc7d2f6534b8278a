package exporter_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gcdbg/runner"
	"gcdbg/trace"
)

// Training mode in the exporter (issue 14, points 2 and 3), run with the
// system PyTorch: each module's own training flag (TRAIN keeps the modes
// the user set, inference puts every module in eval), the buffers a step
// mutates and the random draws, replayed by gcdbg so the run matches.

func exportArgs(t *testing.T, model string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "m.json")
	cmd := exec.Command(python(t), append([]string{"gcdbg_export.py", filepath.Join("testdata", model), "-o", out, "--runs", "0"}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: export failed: %v\n%s", model, err, b)
	}
	return out
}

type rawTrace struct {
	Graphs []struct {
		Nodes []struct {
			Name   string `json:"name"`
			Module *struct {
				Training *bool `json:"training"`
			} `json:"module"`
		} `json:"nodes"`
		Expected struct {
			Buffers map[string]json.RawMessage `json:"buffers"`
			Random  map[string]json.RawMessage `json:"random"`
		} `json:"expected"`
	} `json:"graphs"`
}

func readRaw(t *testing.T, path string) rawTrace {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r rawTrace
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestModuleModesBuffersAndDraws(t *testing.T) {
	for _, c := range []struct {
		args  []string
		modes map[string]bool
	}{
		{[]string{"--train"}, map[string]bool{"frozen": false, "bn": true, "drop": true}},
		{nil, map[string]bool{"frozen": false, "bn": false, "drop": false}},
	} {
		out := exportArgs(t, "modes.py", c.args...)
		r := readRaw(t, out)
		g := r.Graphs[0]
		for _, n := range g.Nodes {
			want, ok := c.modes[n.Name]
			if !ok {
				continue
			}
			if n.Module == nil || n.Module.Training == nil || *n.Module.Training != want {
				t.Errorf("%v: module %s training = %v, want %v", c.args, n.Name, n.Module, want)
			}
		}
		train := len(c.args) > 0
		for _, k := range []string{"bn.running_mean", "bn.running_var", "bn.num_batches_tracked"} {
			if _, ok := g.Expected.Buffers[k]; ok != train {
				t.Errorf("%v: expected.buffers has %s: %v", c.args, k, ok)
			}
		}
		if _, ok := g.Expected.Buffers["frozen.running_mean"]; ok {
			t.Errorf("%v: the frozen BatchNorm's running_mean is listed as mutated", c.args)
		}
		if _, ok := g.Expected.Random["drop"]; ok != train {
			t.Errorf("%v: expected.random has drop: %v", c.args, ok)
		}
		tr, err := trace.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: "eager"})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK {
			t.Errorf("%v: does not match PyTorch:\n%s", c.args, res.Summary())
		}
	}
}

func TestInplaceDropoutRecorded(t *testing.T) {
	out := exportArgs(t, "inplace_dropout.py")
	if _, ok := readRaw(t, out).Graphs[0].Expected.Random["drop"]; !ok {
		t.Fatal("no recorded mask for the in-place dropout")
	}
	tr, err := trace.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(tr, runner.Options{Runs: 1, Device: "eager"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Errorf("does not match PyTorch:\n%s", res.Summary())
	}
}
