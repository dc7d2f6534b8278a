package runner

import (
	"strings"
	"testing"
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
	tr, units, c := renderConvPrograms(t, "conv_depthwise_train.json")
	// 12 depthwise convolutions, each with its forward, input gradient (x, big and xn need one) and
	// weight gradient
	checkDepthwiseOnly(t, c, 12)
	checkConvRun(t, tr, units, 6, 24, "21 parameters, x, big and xn")
}

// checkDepthwiseOnly fails unless the generated C c calls each depthwise
// kernel (forward, backward input, backward weight) at least n times and
// no convolution takes the generic im2col path.
func checkDepthwiseOnly(t *testing.T, c string, n int) {
	t.Helper()
	for _, want := range []string{"gcdbg_dw_forward_float(", "gcdbg_dw_backward_input_float(", "gcdbg_dw_backward_weight_float("} {
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
}
