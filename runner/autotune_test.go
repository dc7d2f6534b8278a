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
// generated GEMM (GCDBG_CHOICE=2) or oneDNN's sgemm (8, on the team; 9, on
// one thread) instead of OpenBLAS, or either of them on row-major copies of
// the transposed operands (32, 33, 40), and every kernel's decision is
// reported with the kernel.
func TestChoiceCandidatesMatch(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ choice, label string }{{"2", "generated GEMM"}, {"8", "oneDNN sgemm, all threads"}, {"9", "oneDNN sgemm, one thread"},
		// transposed operands copied row-major (render/gemm_pack.go): the
		// forward's x @ W^T copies W^T, the weight gradients' g^T @ h copy g^T
		{"32", "OpenBLAS on row-major copies, all threads"}, {"33", "OpenBLAS on row-major copies, one thread"},
		{"40", "oneDNN sgemm on row-major copies, all threads"}} {
		t.Run(c.label, func(t *testing.T) {
			t.Setenv("GCDBG_CHOICE", c.choice)
			res, err := Run(tr, Options{Runs: 1, Device: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			gemm := 0
			for _, g := range res.Graphs {
				for _, k := range g.Kernels {
					if kr, ok := k.(KernelResult); ok && kr.Choice != nil && strings.HasPrefix(kr.Choice.Label, c.label) {
						gemm++
					}
				}
				for _, o := range g.Outputs {
					if o.VsExpected == nil || !o.VsExpected.Match || o.VsEager == nil || !o.VsEager.Match {
						t.Errorf("output %d with %s: vs PyTorch %+v, vs eager %+v", o.Index, c.label, o.VsExpected, o.VsEager)
					}
				}
				for _, gd := range g.Grads {
					if gd.VsExpected == nil || !gd.VsExpected.Match || gd.VsEager == nil || !gd.VsEager.Match {
						t.Errorf("grad %s with %s: vs PyTorch %+v, vs eager %+v", gd.Name, c.label, gd.VsExpected, gd.VsEager)
					}
				}
			}
			if gemm < 3 {
				t.Errorf("%d kernels ran %s, want the forward's 3 Linear layers at least", gemm, c.label)
			}
		})
	}
}
