package runner

import (
	"os/exec"
	"strings"
	"testing"
)

// oneDNN's convolution primitive as the conv kernels' candidate (issue 13;
// render/conv_dnnl.go, choice 16): every float32 conv2d, conv2d_backward_input
// and conv2d_backward_weight kernel of the edge-shape fixtures offers it, and
// with GCDBG_CHOICE=16 every one of them runs the primitive
// (GCDBG_DNNL_CONV_REQUIRED=1 aborts the run where the primitive refuses a
// shape or a layout instead of quietly taking the im2col path) and every
// output and gradient matches PyTorch through the verdict. The shapes:
// conv_plane_train (padding 0/1/2, stride 2 and (2, 1), dilation 2 with
// groups 3, a (3, 2) window, 1x1, non-square planes, batch 1 and 3, a
// grad_output expanded from a mean), conv1d_train (Conv1d as unsqueeze +
// conv2d, strided + dilated + grouped, a transposed weight view, unbatched
// inputs: the 3-D forward keeps im2col, not offered), conv_pool_train
// (stride 2 with padding, dilation with groups, a (3, 2) window with stride
// (1, 2), beside pools and a depthwise conv, which keeps its direct kernels).
func TestConvDNNLMatchesPyTorch(t *testing.T) {
	if out, err := exec.Command("ldconfig", "-p").Output(); err != nil || !strings.Contains(string(out), "libdnnl.so.2") {
		t.Skip("no libdnnl.so.2 (oneDNN) on this machine")
	}
	for _, c := range []struct {
		name          string
		nOut, nGrads  int
		what          string
		minCandidates int
	}{
		{"conv_plane_train.json", 5, 21, "17 parameters, x, big, wide and strided", 29},
		{"conv1d_train.json", 4, 5, "conv1d's parameters", 9},
		{"../../fixtures/conv_pool_train.json", 1, 10, "conv_pool_train's parameters and x", 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, units, code := renderConvPrograms(t, c.name)
			if n := strings.Count(code, "gcdbg_dconv_run(&gcdbg_dc, "); n < c.minCandidates {
				t.Fatalf("%d conv kernels offer oneDNN's convolution, want at least %d", n, c.minCandidates)
			}
			t.Setenv("GCDBG_NO_BLAS", "0")
			t.Setenv("GCDBG_CHOICE", "16")
			t.Setenv("GCDBG_DNNL_CONV_REQUIRED", "1")
			checkConvRun(t, tr, units, c.nOut, c.nGrads, c.what)
		})
	}
}
