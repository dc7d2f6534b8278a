package runner

import (
	"os/exec"
	"strings"
	"testing"

	"gcdbg/render"
	"gcdbg/stages"
	"gcdbg/trace"
)

// Depthwise convolutions (groups == channels) take the direct depthwise
// kernels (issue 13; render/conv_depthwise.go; testdata/models/
// conv_depthwise_train.py, exported from PyTorch) in training: stride 1
// and 2, stride (1, 2), padding 0, 1, 2, 3 (past the window), (0, 2),
// dilation 2, a depth multiplier of 2, (3, 5), 5x5, 2x2 on odd sizes and
// 1x1 windows, batch 3, 2 and 1 (a 130 x 128 plane), and a NaN in an
// input whose outputs and gradients (one tap of the weight gradient) turn
// NaN where PyTorch's do. Every convolution of the forward and backward
// programs is depthwise, so none may take the im2col path, and every
// output and gradient matches PyTorch through the verdict.
func TestConvDepthwiseMatchesPyTorch(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, err := trace.Load("testdata/conv_depthwise_train.json")
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
			render.Options{Trace: "conv_depthwise_train.json", Graph: units[0].Captured.Name, Role: lp.Role})
		if err != nil {
			t.Fatal(err)
		}
		code.WriteString(src.Code)
	}
	c := code.String()
	// 12 depthwise convolutions, each with its forward, input gradient (x, big and xn need one) and
	// weight gradient
	for want, n := range map[string]int{"gcdbg_dw_forward_float(": 12, "gcdbg_dw_backward_input_float(": 12, "gcdbg_dw_backward_weight_float(": 12} {
		// the call sites, not the definition
		if got := strings.Count(c, "  "+want); got < n {
			t.Errorf("the generated C calls %s %d times, want %d", want, got, n)
		}
	}
	for _, not := range []string{"/* conv2d: im2col + GEMM", "conv2d_backward_input: col", "conv2d_backward_weight: dW_g"} {
		if strings.Contains(c, not) {
			t.Errorf("a depthwise convolution took the generic path (%q)", not)
		}
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "compiled" || !res.OK {
		t.Fatalf("backend %q: does not match PyTorch:\n%s", res.Backend, res.Summary())
	}
	g := res.Graphs[0]
	if len(g.Outputs) != 6 || len(g.Grads) != 24 {
		t.Fatalf("%d outputs and %d grads, want 6 and 24 (21 parameters, x, big and xn)", len(g.Outputs), len(g.Grads))
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
