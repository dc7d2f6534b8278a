package runner

import (
	"os/exec"
	"strings"
	"testing"

	"gcdbg/render"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Conv1d in training (issue 13; testdata/models/conv1d_train.py, exported
// from PyTorch): PyTorch decomposes it into unsqueeze + conv2d, and the
// unsqueezed weight [OC, CG, 1, KW] has stride 1 at the new axis, so it
// did not "flatten" and every Conv1d took the direct scalar loops (double
// accumulator, ~1 GFLOP/s). Every conv2d kernel of the forward program —
// padded, strided+dilated+grouped, an unbatched Conv1d, a transposed
// weight view (packed once), an unbatched Conv2d (3-D input) — renders
// im2col + GEMM, the backward's grad_output is read in place (no packed
// copy), and the compiled run matches PyTorch's outputs and gradients.
func TestConv1dTakesIm2colGEMM(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := trace.Load("testdata/conv1d_train.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	convKernels, packs := 0, 0
	for _, lp := range units[0].Programs {
		src, err := render.Render(lp.Loops, lp.Schedule.Kernels, lp.Memory, render.C,
			render.Options{Trace: "conv1d_train.json", Graph: units[0].Captured.Name, Role: lp.Role})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range strings.Split(src.Code, "\n// kernel ")[1:] {
			head := k[:strings.IndexByte(k, '\n')]
			if strings.Contains(k, "float *pk1 = ") {
				t.Errorf("%s kernel %s: grad_output copied into a packed buffer", lp.Role, head)
			}
			packs += strings.Count(k, "float *pk2 = ")
			if !strings.Contains(head+",", " extern conv2d,") {
				continue
			}
			convKernels++
			if !strings.Contains(k, "/* conv2d: im2col + GEMM") || !strings.Contains(k, "gcdbg_im2col_float(") ||
				!strings.Contains(k, "gcdbg_gemm_dnnl_float : gcdbg_gemm_float)(") || strings.Contains(k, "double acc") {
				t.Errorf("%s kernel %s: conv2d is not im2col + GEMM:\n%s", lp.Role, head, k)
			}
		}
	}
	if convKernels != 5 {
		t.Errorf("%d conv2d kernels, want 5", convKernels)
	}
	if packs != 1 {
		t.Errorf("%d packed weights, want 1 (the transposed one)", packs)
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "compiled" || !res.OK {
		t.Fatalf("backend %q: does not match PyTorch:\n%s", res.Backend, res.Summary())
	}
	g := res.Graphs[0]
	if len(g.Outputs) != 4 || len(g.Grads) != 5 {
		t.Fatalf("%d outputs and %d grads, want 4 and 5", len(g.Outputs), len(g.Grads))
	}
	for _, o := range g.Outputs {
		if o.VsExpected == nil || !o.VsExpected.Match {
			t.Errorf("output %d vs PyTorch: %+v", o.Index, o.VsExpected)
		}
	}
	for _, gd := range g.Grads {
		if gd.VsExpected == nil || !gd.VsExpected.Match {
			t.Errorf("grad %s vs PyTorch: %+v", gd.Name, gd.VsExpected)
		}
	}
}
