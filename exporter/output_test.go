package exporter_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"gcdbg/runner"
	"gcdbg/trace"
)

// A forward returning a dict (Hugging Face style) with a tuple inside
// exports as a flat tuple of outputs in the documented order, the keys
// recorded in the graph's output_keys; check_trace.py and gcdbg run agree
// the trace is valid and gcdbg matches PyTorch's outputs and grads. A None
// leaf is refused with exit 2 ("return a tuple").
func TestDictOutputFlattened(t *testing.T) {
	out, msg, err := export(t, "dict_out.py")
	if err != nil {
		t.Fatalf("export failed: %v\n%s", err, msg)
	}
	if b, err := exec.Command(python(t), "check_trace.py", out).CombinedOutput(); err != nil {
		t.Fatalf("check_trace.py refuses the exported trace: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Graphs []struct {
			OutputKeys []string `json:"output_keys"`
			Nodes      []struct {
				Op   string `json:"op"`
				Args []any  `json:"args"`
			} `json:"nodes"`
			Expected struct {
				Outputs []any `json:"outputs"`
			} `json:"expected"`
		} `json:"graphs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	g := doc.Graphs[0]
	if want := "logits loss hidden.0 hidden.1"; strings.Join(g.OutputKeys, " ") != want {
		t.Errorf("output_keys %q, want %q", g.OutputKeys, want)
	}
	last := g.Nodes[len(g.Nodes)-1]
	outs, _ := last.Args[0].([]any)
	if last.Op != "output" || len(outs) != 4 || len(g.Expected.Outputs) != 4 {
		t.Fatalf("output node args %v, %d expected outputs: want 4 flat outputs", last.Args, len(g.Expected.Outputs))
	}
	tr, err := trace.Load(out)
	if err != nil {
		t.Fatalf("gcdbg refuses the exported trace: %v", err)
	}
	res, err := runner.Run(tr, runner.Options{Runs: 1, Device: "eager"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Errorf("does not match PyTorch:\n%s", res.Summary())
	}
	if n := len(res.Graphs[0].Outputs); n != 4 {
		t.Errorf("gcdbg compared %d outputs, want 4", n)
	}

	_, msg, err = export(t, "none_out.py")
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("None output: exit %v, want 2\n%s", err, msg)
	}
	if !strings.Contains(msg, "return a tuple") || !strings.Contains(msg, `'loss'`) || strings.Contains(msg, "Traceback") {
		t.Errorf("None output: message does not name the output and say to return a tuple:\n%s", msg)
	}
}
