package runner

import (
	"os/exec"
	"strings"
	"testing"
)

// oneDNN's Winograd convolution (render/conv_dnnl.go gcdbg_dconv_wino,
// choice 16|64): every float32 3x3 stride-1 undilated ungrouped conv2d,
// conv2d_backward_input and conv2d_backward_weight kernel of the fixtures
// offers it beside the direct primitive, and with GCDBG_CHOICE=80 every
// one of them runs it (GCDBG_DNNL_CONV_REQUIRED=1 aborts where oneDNN
// refuses) and every output and gradient matches PyTorch through the
// verdict. conv_nonfinite's 3->6 conv `a` has NaN and ±Inf weight taps:
// Winograd's transforms spread them over whole tiles (NaN where PyTorch's
// direct kernels are finite at the border), so its result's NaN/Inf check
// falls back to the direct primitive and the values are PyTorch's, NaN/Inf
// at PyTorch's positions.
func TestConvDNNLWinogradMatchesPyTorch(t *testing.T) {
	if out, err := exec.Command("ldconfig", "-p").Output(); err != nil || !strings.Contains(string(out), "libdnnl.so.2") {
		t.Skip("no libdnnl.so.2 (oneDNN) on this machine")
	}
	for _, c := range []struct {
		name          string
		nOut, nGrads  int
		what          string
		minCandidates int
		nonFinite     []string
	}{
		{"conv_plane_train.json", 5, 21, "17 parameters, x, big, wide and strided", 1, nil},
		{"conv_nonfinite.json", 4, 12, "x, xb, xc, xd and the four convolutions' weights and biases", 3, []string{"x", "xb", "b.weight"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, units, code := renderConvPrograms(t, c.name)
			n := strings.Count(code, "gcdbg_dconv_wino(&gcdbg_dcw, ")
			if n < c.minCandidates {
				t.Fatalf("%d conv kernels offer oneDNN's Winograd convolution, want at least %d", n, c.minCandidates)
			}
			if all := strings.Count(code, "gcdbg_dconv_run(&gcdbg_dc, "); n >= all {
				t.Errorf("%d of %d oneDNN conv kernels offer Winograd: a strided, dilated, grouped or non-3x3 one too", n, all)
			}
			t.Setenv("GCDBG_NO_BLAS", "0")
			t.Setenv("GCDBG_CHOICE", "80")
			t.Setenv("GCDBG_DNNL_CONV_REQUIRED", "1")
			g := checkConvRun(t, tr, units, c.nOut, c.nGrads, c.what)
			if c.nonFinite != nil {
				checkNonFinite(t, g, true, c.nonFinite...)
			}
		})
	}
}
