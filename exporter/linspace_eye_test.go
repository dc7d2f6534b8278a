package exporter_test

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/runner"
	"gcdbg/trace"
)

// torch.linspace, torch.logspace and torch.eye of Python numbers inside
// forward (testdata/linspace_eye.py) are graph nodes, as in Dynamo's
// captured graph, not results fx computed while tracing and froze into a
// _tensor_constant (before: 7 constants, no node); gcdbg computes them
// (linspace and logspace as PyTorch's kernels lay them out, eye decomposed)
// and the eager and compiled runs match PyTorch in every output and
// gradient, compared with PyTorch's values.
func TestLinspaceLogspaceEyeAreGraphNodes(t *testing.T) {
	tr, got, constants := exportTorchCalls(t, "linspace_eye.py", func(target string) bool { return strings.HasPrefix(target, "lin.") })
	if want := "eye eye linspace linspace linspace logspace logspace where"; got != want {
		t.Errorf("torch nodes %s, want %s", got, want)
	}
	if constants != 0 {
		t.Errorf("%d constants besides the Linear's parameters: a factory call was frozen", constants)
	}
	matchBothDevices(t, tr, 5) // 4 outputs and the gradient of x
}

// exportTorchCalls exports testdata/script and returns the trace, the
// targets of its first graph's torch.* call nodes (sorted, without
// "torch.", joined by spaces) and how many get_attr nodes the model's own
// (own(target)) are not: constants the tracer froze.
func exportTorchCalls(t *testing.T, script string, own func(target string) bool) (*trace.Trace, string, int) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "m.json")
	if b, err := exec.Command(python(t), "gcdbg_export.py", filepath.Join("testdata", script), "-o", out, "--runs", "0").CombinedOutput(); err != nil {
		t.Fatalf("export failed: %v\n%s", err, b)
	}
	tr, err := trace.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	constants := 0
	for _, n := range tr.Graphs[0].Nodes {
		if n.Op == ir.CallFunction && strings.HasPrefix(n.Target, "torch.") {
			got = append(got, strings.TrimPrefix(n.Target, "torch."))
		}
		if n.Op == ir.GetAttr && !own(n.Target) {
			constants++
		}
	}
	sort.Strings(got)
	return tr, strings.Join(got, " "), constants
}

// matchBothDevices runs tr eager and compiled and fails unless each
// matches PyTorch with want outputs and gradients compared with PyTorch's
// values.
func matchBothDevices(t *testing.T, tr *trace.Trace, want int) {
	t.Helper()
	for _, dev := range []string{"eager", "cpu"} {
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		if !res.OK {
			t.Errorf("%s: does not match PyTorch:\n%s", dev, res.Summary())
		}
		g := res.Graphs[0]
		compared := 0
		for _, o := range g.Outputs {
			if o.VsExpected != nil {
				compared++
			}
		}
		for _, gd := range g.Grads {
			if gd.VsExpected != nil {
				compared++
			}
		}
		if compared != want || g.NotComparedWithPyTorch != "" {
			t.Errorf("%s: %d outputs and gradients compared with PyTorch, want %d (%s)", dev, compared, want, g.NotComparedWithPyTorch)
		}
	}
}
