package runner

import (
	"os/exec"
	"strings"
	"testing"
)

// Generic convolutions (im2col + GEMM) whose weights hold NaN and ±Inf,
// and one whose output gradient does at outputs whose windows reach
// padding (testdata/models/conv_nonfinite.py, exported from PyTorch 1.13
// in training): the forward outputs, the input gradients and the weight
// and bias gradients match PyTorch and the eager interpreter, NaN and Inf
// at PyTorch's positions, on every path: the im2col path with OpenBLAS,
// with the generated GEMM (GCDBG_NO_BLAS=1), and oneDNN's primitive. Before
// render/conv_nonfinite.go, a NaN/Inf weight times im2col's padding zeros
// made the border outputs NaN where PyTorch is finite, and a non-finite
// dY over the padding did the same to b's weight gradient.
func TestConvNonFiniteMatchesPyTorch(t *testing.T) {
	tr, units, c := renderConvPrograms(t, "conv_nonfinite.json")
	// structure: the four convolutions take the generic path and carry the checks
	for _, want := range []struct {
		call string
		n    int
	}{
		{"/* conv2d: im2col + GEMM", 4},
		{"  gcdbg_conv_border_float(", 4},         // the forwards' non-finite weight path
		{"OC, CGK, CGK, 1)) /* NaN/Inf in dW", 4}, // the weight gradients' check of dW
		{"  gcdbg_conv_bwdw_redo_float(", 4},
	} {
		if got := strings.Count(c, want.call); got < want.n {
			t.Errorf("the generated C has %q %d times, want at least %d", want.call, got, want.n)
		}
	}
	if strings.Contains(c, "gcdbg_dw_forward_float(X") {
		t.Errorf("a convolution took the depthwise path")
	}
	paths := []struct {
		name string
		env  map[string]string
	}{
		{"openblas", map[string]string{"GCDBG_CHOICE": "0"}},
		{"generated_gemm", map[string]string{"GCDBG_NO_BLAS": "1", "GCDBG_CHOICE": "0"}},
	}
	if out, err := exec.Command("ldconfig", "-p").Output(); err == nil && strings.Contains(string(out), "libdnnl.so.2") {
		paths = append(paths, struct {
			name string
			env  map[string]string
		}{"onednn", map[string]string{"GCDBG_NO_BLAS": "0", "GCDBG_CHOICE": "16", "GCDBG_DNNL_CONV_REQUIRED": "1"}})
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			for k, v := range p.env {
				t.Setenv(k, v)
			}
			checkConvRun(t, tr, units, 4, 12, "x, xb, xc, xd and the four convolutions' weights and biases")
			res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			g := res.Graphs[0]
			// the fixture reaches the non-finite values: NaN/Inf where PyTorch has them
			for i, o := range g.Outputs {
				if o.VsEager == nil || !o.VsEager.Match || o.VsExpected == nil || o.VsExpected.NonFinite == 0 {
					t.Errorf("output %d: vs eager %+v; vs PyTorch %+v (want NaN/Inf in both)", i, o.VsEager, o.VsExpected)
				}
			}
			for _, gd := range g.Grads {
				if gd.VsEager == nil || !gd.VsEager.Match {
					t.Errorf("grad %s vs eager: %+v", gd.Name, gd.VsEager)
				}
				if (gd.Name == "x" || gd.Name == "xb" || gd.Name == "b.weight") && (gd.VsExpected == nil || gd.VsExpected.NonFinite == 0) {
					t.Errorf("grad %s: no NaN/Inf compared with PyTorch's: %+v", gd.Name, gd.VsExpected)
				}
			}
		})
	}
}
