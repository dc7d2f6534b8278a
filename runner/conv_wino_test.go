package runner

import (
	"os/exec"
	"strings"
	"testing"
)

// oneDNN's Winograd convolution (render/conv_dnnl.go gcdbg_dconv_wino,
// choice 16|64): every float32 3x3 stride-1 undilated ungrouped
// conv2d_backward_weight kernel of the fixtures offers it beside the
// direct primitive (the forward and backward data do not: dnnlWinograd),
// and with GCDBG_CHOICE=80 every one of them runs it
// (GCDBG_DNNL_CONV_REQUIRED=1 aborts where oneDNN refuses) and every
// output and gradient matches PyTorch through the verdict.
// conv_wino_train's conv b (no padding, so conv_nonfinite.go's check of dW
// is not emitted) meets -Inf on its input's top edge: Winograd's
// transforms add it up with both signs (NaN where the direct sums are
// ±Inf), so the result's NaN/Inf check falls back to the direct primitive
// and b's weight gradient is PyTorch's, NaN/Inf at PyTorch's positions
// (without the check: "NaN/Inf at other positions").
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
		{"conv_wino_train.json", 2, 6, "x, xb and the two convolutions' weights and biases", 2, []string{"b.weight"}},
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
			// the fixture reaches the non-finite values: NaN/Inf where PyTorch has them
			for _, name := range c.nonFinite {
				found := false
				for _, gd := range g.Grads {
					if gd.Name == name {
						found = true
						if gd.VsExpected == nil || !gd.VsExpected.Match || gd.VsExpected.NonFinite == 0 {
							t.Errorf("grad %s vs PyTorch: %+v (want a match, with NaN/Inf)", name, gd.VsExpected)
						}
					}
				}
				if !found {
					t.Errorf("no grad %s", name)
				}
			}
		})
	}
}
