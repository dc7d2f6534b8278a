package runner

import (
	"os/exec"
	"strings"
	"testing"
)

// ConvTranspose2d (and ConvTranspose1d through it) is lowered to
// conv2d_backward_input, the input gradient of the convolution whose weight
// it holds (stages/decomp_ext_nn.go convTransposeAsInputGrad), not to a
// convolution over a zero-inserted, padded input (stride² times the terms):
// no index_select dilates an input any more, and its gradients are conv2d
// (input) and conv2d_backward_weight (weight) (stages/derivatives_conv.go).
// testdata/models/conv_transpose_train.py, exported from PyTorch: 2x2
// stride 2 with bias, 3x3 stride 2 padding 1 output_padding 1 without,
// groups 2 with dilation 2 and a (2, 3) window with stride (2, 1), stride 1,
// an unbatched input, a ConvTranspose1d with output_padding; every output
// and gradient matches PyTorch through the verdict with the im2col kernels
// (choice 0) and with oneDNN's convolution primitive (choice 16, where
// libdnnl.so.2 is there).
func TestConvTransposeAsInputGradMatchesPyTorch(t *testing.T) {
	tr, units, code := renderConvPrograms(t, "conv_transpose_train.json")
	fwd := units[0].Decomposed
	if fwd == nil {
		t.Fatal("no decomposed graph")
	}
	bwdIn, sel := 0, 0
	for _, n := range fwd.Nodes {
		switch n.Target {
		case "aten.conv2d_backward_input":
			bwdIn++
		case "aten.index_select":
			sel++
		}
	}
	if bwdIn != 6 || sel != 0 {
		t.Errorf("decomposed: %d conv2d_backward_input and %d index_select nodes, want 6 and 0:\n%s", bwdIn, sel, code)
	}
	if !strings.Contains(code, "conv2d_backward_input: col") {
		t.Error("the generated C has no conv2d_backward_input kernel")
	}
	t.Setenv("GCDBG_CHOICE", "0")
	checkConvRun(t, tr, units, 3, 14, "11 parameters, x, v and s")
	if out, err := exec.Command("ldconfig", "-p").Output(); err != nil || !strings.Contains(string(out), "libdnnl.so.2") {
		return
	}
	t.Setenv("GCDBG_CHOICE", "16")
	t.Setenv("GCDBG_DNNL_CONV_REQUIRED", "1")
	checkConvRun(t, tr, units, 3, 14, "11 parameters, x, v and s")
}
