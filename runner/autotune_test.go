package runner

import (
	"os/exec"
	"strings"
	"testing"

	"gcdbg/trace"
)

// Each candidate a kernel can choose by measurement computes values that
// pass the accuracy verdict against PyTorch and gcdbg's eager interpreter:
// the seed MLP in training, its forward and backward GEMMs run through the
// generated GEMM (GCDBG_CHOICE=2) instead of OpenBLAS, and every kernel's
// decision is reported with the kernel.
func TestChoiceCandidatesMatch(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GCDBG_CHOICE", "2")
	res, err := Run(tr, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	gemm := 0
	for _, g := range res.Graphs {
		for _, k := range g.Kernels {
			if kr, ok := k.(KernelResult); ok && kr.Choice != nil && strings.HasPrefix(kr.Choice.Label, "generated GEMM") {
				gemm++
			}
		}
		for _, o := range g.Outputs {
			if o.VsExpected == nil || !o.VsExpected.Match || o.VsEager == nil || !o.VsEager.Match {
				t.Errorf("output %d with the generated GEMM: vs PyTorch %+v, vs eager %+v", o.Index, o.VsExpected, o.VsEager)
			}
		}
		for _, gd := range g.Grads {
			if gd.VsExpected == nil || !gd.VsExpected.Match || gd.VsEager == nil || !gd.VsEager.Match {
				t.Errorf("grad %s with the generated GEMM: vs PyTorch %+v, vs eager %+v", gd.Name, gd.VsExpected, gd.VsEager)
			}
		}
	}
	if gemm < 3 {
		t.Errorf("%d kernels ran the generated GEMM, want the forward's 3 Linear layers at least", gemm)
	}
}
