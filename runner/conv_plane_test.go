package runner

import (
	"os/exec"
	"strings"
	"testing"

	"gcdbg/render"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Convolutions whose im2col and col2im go through a padded plane on the
// stack (issue 13; render/conv_plane.go; testdata/models/conv_plane_train.py,
// exported from PyTorch), in training: 3x3 padding 1 at 13x37 (two
// 16-column chunks and a remainder), padding 0, stride 2, stride (2, 1),
// dilation 2 with groups, a (3, 2) window with padding (2, 0), a 1x1 conv,
// a 130x128 plane too big for the stack (the masked loops), and two
// convolutions whose column matrix outgrows 1 MB, so that im2col + GEMM
// run in chunks of output rows (forward, backward weight and, through
// render/conv_bwd_input.go, backward input), one on the plane path, one
// on the masked loops, and a third with stride 2, padding 2 and
// dilation 2 whose input gradient is built in four chunks. The forward (im2col), backward
// input (col2im, which writes dX with no memset before) and backward
// weight (im2col, then BLAS accumulating with beta 1) programs render the
// helpers, and every output and gradient matches PyTorch, with OpenBLAS
// and without (GCDBG_NO_BLAS=1). The helpers' values bit for bit against
// their definition: render's TestConvPlaneHelpersExact.
func TestConvPlaneMatchesPyTorch(t *testing.T) {
	tr, units, code := renderConvPrograms(t, "conv_plane_train.json")
	for _, want := range []string{"gcdbg_im2col_plane_float(", "gcdbg_col2im_plane_float(", "conv2d_backward_input: col", "gcdbg_gemm_acc_float(", "gcdbg_conv_chunk(", "gcdbg_conv_bwd_input_rows_float(",
		"conv2d_backward_weight: dW_g", "/* conv2d: im2col + GEMM"} {
		if !strings.Contains(code, want) {
			t.Errorf("the generated C has no %q", want)
		}
	}
	// with BLAS: conv2d_backward_weight accumulates with beta 1 (render/conv_acc.go);
	// without: the generated GEMM's product added after
	for _, noBLAS := range []string{"0", "1"} {
		t.Setenv("GCDBG_NO_BLAS", noBLAS)
		checkConvPlaneRun(t, tr, units)
	}
	// the per-image GEMMs and the beta-1 accumulation through oneDNN's
	// sgemm (render/gemm_dnnl.go, choice 8) where the kernel offers it
	if !strings.Contains(code, "gcdbg_gemm_acc_dnnl_float :") || !strings.Contains(code, "gcdbg_gemm_dnnl_float :") {
		t.Error("the convolutions offer no oneDNN choice")
	}
	t.Setenv("GCDBG_NO_BLAS", "0")
	t.Setenv("GCDBG_CHOICE", "8")
	checkConvPlaneRun(t, tr, units)
}

func checkConvPlaneRun(t *testing.T, tr *trace.Trace, units []*stages.Unit) {
	t.Helper()
	checkConvRun(t, tr, units, 5, 21, "17 parameters, x, big, wide and strided")
}

// renderConvPrograms loads testdata/NAME (skipping without a C compiler),
// runs the stages and renders every program of its first graph in the C
// dialect, one after the other.
func renderConvPrograms(t *testing.T, name string) (*trace.Trace, []*stages.Unit, string) {
	t.Helper()
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := trace.Load("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	units, err := stages.Run(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	var code strings.Builder
	for _, lp := range units[0].Programs {
		src, err := render.Render(lp.Loops, lp.Schedule.Kernels, lp.Memory, render.C,
			render.Options{Trace: name, Graph: units[0].Captured.Name, Role: lp.Role})
		if err != nil {
			t.Fatal(err)
		}
		code.WriteString(src.Code)
	}
	return tr, units, code.String()
}

// checkConvRun runs the compiled programs once and fails unless the first
// graph has nOut outputs and nGrads gradients (what: which) and every one
// matches PyTorch through the verdict; it returns that graph's results.
func checkConvRun(t *testing.T, tr *trace.Trace, units []*stages.Unit, nOut, nGrads int, what string) GraphResult {
	t.Helper()
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "compiled" || !res.OK {
		t.Fatalf("backend %q: does not match PyTorch:\n%s", res.Backend, res.Summary())
	}
	g := res.Graphs[0]
	if len(g.Outputs) != nOut || len(g.Grads) != nGrads {
		t.Fatalf("%d outputs and %d grads, want %d and %d (%s)", len(g.Outputs), len(g.Grads), nOut, nGrads, what)
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
	return g
}
