package runner

import (
	"strings"
	"testing"
)

// 1x1 convolutions with stride 1 and no padding skip im2col and col2im
// (issue 13; render/conv.go conv1x1): the forward GEMM reads the input as
// its column matrix, the weight gradient's GEMM too, and the input
// gradient's GEMM writes dX; the condition is checked at run time against
// the input's strides (a permuted input, whose rows are not contiguous,
// keeps im2col), and stride 2 or padding 1 keep it statically.
// testdata/models/conv1x1_train.py, exported from PyTorch: bias, groups 2,
// batch 1, a channel-sliced input, a 1x1 ConvTranspose2d; every output and
// gradient matches PyTorch through the verdict with OpenBLAS and with the
// generated GEMM (GCDBG_NO_BLAS=1), on the im2col kernels (choice 0).
func TestConv1x1ReadsInputMatchesPyTorch(t *testing.T) {
	tr, units, code := renderConvPrograms(t, "conv1x1_train.json")
	count := func(tail string) (direct, static0 int) {
		for _, l := range strings.Split(code, "\n") {
			if !strings.Contains(l, "const int d11 = ") || !strings.Contains(l, tail) {
				continue
			}
			if strings.Contains(l, "d11 = 0;") {
				static0++
			} else {
				direct++
			}
		}
		return
	}
	for _, c := range []struct {
		what, tail    string
		direct, zeros int
	}{
		{"conv2d", "the GEMM reads X", 5, 2},
		{"conv2d_backward_weight", "X is the column matrix", 5, 2},
		{"conv2d_backward_input", "the GEMM writes dX", 5, 2},
	} {
		if d, z := count(c.tail); d != c.direct || z != c.zeros {
			t.Errorf("%s: %d kernels may read the input in place and %d may not, want %d and %d", c.what, d, z, c.direct, c.zeros)
		}
	}
	t.Setenv("GCDBG_CHOICE", "0")
	for _, noBLAS := range []string{"0", "1"} {
		t.Setenv("GCDBG_NO_BLAS", noBLAS)
		checkConvRun(t, tr, units, 5, 15, "12 parameters, x, y and z")
	}
}
