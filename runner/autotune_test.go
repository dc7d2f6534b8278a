package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/graphtext"
	"gcdbg/trace"
)

// Each candidate a kernel can choose by measurement computes values that
// pass the accuracy verdict against PyTorch and gcdbg's eager interpreter:
// the seed MLP in training, its forward and backward GEMMs run through the
// generated GEMM (GCDBG_CHOICE=2) or oneDNN's sgemm (8, on the team; 9, on
// one thread) instead of OpenBLAS, and every kernel's decision is reported
// with the kernel. (The row-major copies of transposed operands, offered
// only for shapes where the copy is small, have their own test below.)
func TestChoiceCandidatesMatch(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := trace.Load("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ choice, label string }{{"2", "generated GEMM"}, {"8", "oneDNN sgemm, all threads"}, {"9", "oneDNN sgemm, one thread"}} {
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
				checkAllMatch(t, g, " with "+c.label)
			}
			if gemm < 3 {
				t.Errorf("%d kernels ran %s, want the forward's 3 Linear layers at least", gemm, c.label)
			}
		})
	}
}

// The candidate that copies a GEMM's transposed operands row-major
// (render/gemm_pack.go; offered where the copy is small beside the product)
// computes what the plain call computes: a TN product (a weight gradient's
// a^T @ b) and an NT one (x @ w^T), each with the copy small enough, run
// with choices 32 (OpenBLAS on the copies), 33 (one thread) and 40
// (oneDNN's sgemm on the copies), every output against the eager
// interpreter through the verdict.
func TestPackCandidateMatches(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	path := filepath.Join(t.TempDir(), "packs.py")
	src := `def forward(self, a: "f32[64, 8]", b: "f32[64, 2048]", x: "f32[2048, 16]", w: "f32[32, 16]"):
    tn = torch.mm(a.t(), b)
    nt = torch.mm(x, w.t())
    return (tn, nt)
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := graphtext.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ choice, label string }{
		{"32", "OpenBLAS on row-major copies, all threads"}, {"33", "OpenBLAS on row-major copies, one thread"},
		{"40", "oneDNN sgemm on row-major copies, all threads"},
	} {
		t.Run(c.label, func(t *testing.T) {
			t.Setenv("GCDBG_CHOICE", c.choice)
			res, err := Run(tr, Options{Runs: 1, Device: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			ran := 0
			for _, g := range res.Graphs {
				for _, k := range g.Kernels {
					if kr, ok := k.(KernelResult); ok && kr.Choice != nil && strings.HasPrefix(kr.Choice.Label, c.label) {
						ran++
					}
				}
				if len(g.Outputs) != 2 {
					t.Fatalf("%d outputs, want 2", len(g.Outputs))
				}
				for _, o := range g.Outputs {
					if o.VsEager == nil || !o.VsEager.Match {
						t.Errorf("output %d with %s: vs eager %+v", o.Index, c.label, o.VsEager)
					}
				}
			}
			if ran != 2 {
				t.Errorf("%d kernels ran %s, want the 2 products", ran, c.label)
			}
		})
	}
}
