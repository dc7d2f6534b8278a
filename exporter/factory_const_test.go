package exporter_test

import (
	"testing"

	"gcdbg/ir"
	"gcdbg/runner"
	"gcdbg/trace"
)

// Factories of Python numbers inside forward (torch.arange(T) with a
// constant T, torch.zeros(4, 8), ones/arange with dtype= and device=, full,
// scalar_tensor, zeros_like/ones_like/full_like of a constant tensor) and of
// traced sizes (torch.zeros(x.shape[0], 8), torch.ones(x.shape)) are graph
// nodes gcdbg computes, not results fx computed while tracing and
// froze into a _tensor_constant; eager and compiled runs match PyTorch in
// every output.
func TestFactoryCallsAreGraphNodes(t *testing.T) {
	tr, got, constants := exportTorchCalls(t, "factory_const.py", func(target string) bool { return target == "k" })
	want := "arange arange arange full full full_like ones ones_like scalar_tensor zeros zeros zeros_like"
	if got != want {
		t.Errorf("factory nodes %s, want %s", got, want)
	}
	if constants != 0 { // self.k, the model's own constant; nothing frozen by the tracer
		t.Errorf("%d constants besides self.k: a factory call was frozen", constants)
	}
	matchBothDevices(t, tr, 7) // outputs only: nothing requires grad
}

// torch.arange(0, t) of a traced size t = x.shape[1] (GPT-style positions;
// fx itself fails on it) is an arange node whose end is the size node, and
// the eager and compiled runs match PyTorch.
func TestArangeOfTracedSize(t *testing.T) {
	out, msg, err := export(t, "arange_len.py")
	if err != nil {
		t.Fatalf("export failed: %v\n%s", err, msg)
	}
	tr, err := trace.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range tr.Graphs[0].Nodes {
		if n.Target == "torch.arange" && len(n.Args) == 2 {
			_, found = n.Args[1].(*ir.Node)
		}
	}
	if !found {
		t.Errorf("no torch.arange node whose end is a traced size:\n%s", msg)
	}
	for _, dev := range []string{"eager", "cpu"} {
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		if !res.OK || res.Graphs[0].NotComparedWithPyTorch != "" {
			t.Errorf("%s: does not match PyTorch:\n%s", dev, res.Summary())
		}
	}
}
