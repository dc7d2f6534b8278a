package bisect

import (
	"strings"
	"testing"

	"gcdbg/ir"
	"gcdbg/loopir"
	"gcdbg/stages"
	"gcdbg/tensor"
	"gcdbg/trace"
)

func units(t *testing.T, path string) []*stages.Unit {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	us, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	return us
}

// loopRun stands in for the compiled kernels: the loop IR's own outputs,
// optionally corrupted.
func loopRun(corrupt int) Kernels {
	return func(lp *stages.LoopProgram, in map[string]*tensor.Tensor) ([]*tensor.Tensor, error) {
		bufs, err := loopirRun(lp, in)
		if err != nil {
			return nil, err
		}
		if corrupt >= 0 && corrupt < len(bufs) {
			c := bufs[corrupt].Clone()
			c.SetFlat(c.Numel()-1, c.Flat(c.Numel()-1)+1)
			bufs[corrupt] = c
		}
		return bufs, nil
	}
}

// A trace whose every stage agrees has no finding.
func TestNoFindingWhenEverythingAgrees(t *testing.T) {
	for _, u := range units(t, "../fixtures/mlp.json") {
		f, err := FirstDifference(u, loopRun(-1), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if f != nil {
			t.Errorf("finding on a matching trace: %s", f)
		}
	}
}

// Each stage is blamed for a difference introduced there, and no earlier.
func TestBlamesTheStageThatDiffers(t *testing.T) {
	// Kernels: a corrupted compiled output.
	u := units(t, "../fixtures/mlp.json")[0]
	f, err := FirstDifference(u, loopRun(0), Options{})
	if err != nil || f == nil || f.Stage != KernelsVsLoopIR || f.Node == "" {
		t.Fatalf("corrupted kernel output: %v, %v", f, err)
	}
	// Eager vs PyTorch: a wrong recorded PyTorch output.
	u = units(t, "../fixtures/mlp.json")[0]
	w := u.Captured.Expected.Outputs[0].Clone()
	w.SetFlat(0, w.Flat(0)+5)
	u.Captured.Expected.Outputs[0] = w
	f, err = FirstDifference(u, loopRun(-1), Options{})
	if err != nil || f == nil || f.Stage != EagerVsPyTorch || len(f.Index) == 0 {
		t.Fatalf("wrong PyTorch value: %v, %v", f, err)
	}
	if !strings.Contains(f.String(), "eager interpreter vs PyTorch") {
		t.Errorf("message: %s", f)
	}
	// When the verdict's reference check agreed with PyTorch everywhere,
	// that difference is not where to look: the walk goes on past it.
	if f, err := FirstDifference(u, loopRun(-1), Options{ReferenceAgrees: true}); err != nil || f != nil && f.Stage == EagerVsPyTorch {
		t.Errorf("reference agrees: still blamed eager vs PyTorch: %v, %v", f, err)
	}
	// Loop IR vs eager: a loop IR node computing something else (relu
	// lowered as neg) is found at that node.
	u = units(t, "../fixtures/mlp.json")[0]
	var node string
	for _, lp := range u.Programs {
		for _, n := range lp.Graph.Nodes {
			if n.Target == "aten.relu" && node == "" {
				node = n.Name
				for _, ln := range lp.Loops.Nodes {
					for i := range ln.Body {
						if ln.Body[i].Op == "relu" {
							ln.Body[i].Op = "neg"
						}
					}
				}
			}
		}
	}
	if node == "" {
		t.Fatal("mlp has no relu")
	}
	f, err = FirstDifference(u, nil, Options{})
	if err != nil || f == nil || f.Stage != LoopIRVsEager || f.Node != node {
		t.Fatalf("broken loop IR at %s: %v, %v", node, f, err)
	}
	_ = ir.CallFunction
}

func loopirRun(lp *stages.LoopProgram, in map[string]*tensor.Tensor) ([]*tensor.Tensor, error) {
	return loopir.Run(lp.Loops, nil, in)
}
