package exporter_test

import (
	"testing"

	"gcdbg/ir"
	"gcdbg/runner"
	"gcdbg/trace"
)

// F.pad whose pads are computed from traced sizes (milesial's U-Net:
// F.pad(x1, [diffX // 2, diffX - diffX // 2, ...]) with diffX from .size())
// is captured as a pad node whose pads are the size arithmetic's nodes (fx
// alone failed in the C argument parser), and the eager and compiled runs
// match PyTorch in both outputs and every gradient.
func TestPadOfTracedSizes(t *testing.T) {
	out, msg, err := export(t, "pad_traced_sizes.py")
	if err != nil {
		t.Fatalf("export failed: %v\n%s", err, msg)
	}
	tr, err := trace.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	traced := 0
	for _, n := range tr.Graphs[0].Nodes {
		if n.Target != "torch.nn.functional.pad" || len(n.Args) < 2 {
			continue
		}
		var pads []ir.Arg
		switch v := n.Args[1].(type) {
		case ir.List:
			pads = v
		case ir.Tuple:
			pads = v
		}
		for _, p := range pads {
			if _, ok := p.(*ir.Node); ok {
				traced++
			}
		}
	}
	if traced != 5 {
		t.Errorf("%d pads are traced size nodes, want 5:\n%s", traced, msg)
	}
	for _, dev := range []string{"eager", "cpu"} {
		res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		if !res.OK || res.Graphs[0].NotComparedWithPyTorch != "" {
			t.Errorf("%s: does not match PyTorch:\n%s", dev, res.Summary())
		}
		if g := res.Graphs[0]; len(g.Outputs) != 2 || len(g.Grads) != 3 || len(g.Fallback) != 0 {
			t.Errorf("%s: %d outputs, %d grads compared, fallbacks %v; want 2, 3, none", dev, len(g.Outputs), len(g.Grads), g.Fallback)
		}
	}
}
