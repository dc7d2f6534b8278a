package runner

import (
	"os/exec"
	"slices"
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
			g := checkConvRun(t, tr, units, 4, 12, "x, xb, xc, xd and the four convolutions' weights and biases")
			// the fixture reaches the non-finite values: NaN/Inf where PyTorch has them
			checkNonFinite(t, g, true, "x", "xb", "b.weight")
		})
	}
}

// Convolutions for which oneDNN takes its GEMM-based kernels (2 input
// channels per group; a dilated, grouped weight gradient;
// testdata/models/conv_nonfinite_gemm.py): those multiply the padding like
// im2col, and PyTorch 1.13 calls them, so there PyTorch's own border is NaN
// where its direct kernels and the eager interpreter are finite. The
// checks run after oneDNN's primitive too, so every candidate gives the
// eager interpreter's values: before, the forced oneDNN run had NaN at
// output 0's border and in b's weight gradient where the im2col run did not.
func TestConvNonFiniteGEMMKernels(t *testing.T) {
	tr, units, _ := renderConvPrograms(t, "conv_nonfinite_gemm.json")
	paths := []map[string]string{{"GCDBG_CHOICE": "0"}}
	if out, err := exec.Command("ldconfig", "-p").Output(); err == nil && strings.Contains(string(out), "libdnnl.so.2") {
		paths = append(paths, map[string]string{"GCDBG_NO_BLAS": "0", "GCDBG_CHOICE": "16", "GCDBG_DNNL_CONV_REQUIRED": "1"})
	}
	for _, env := range paths {
		t.Run("choice"+env["GCDBG_CHOICE"], func(t *testing.T) {
			for k, v := range env {
				t.Setenv(k, v)
			}
			res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Backend != "compiled" {
				t.Fatalf("backend %q", res.Backend)
			}
			g := res.Graphs[0]
			if len(g.Outputs) != 2 || len(g.Grads) != 6 {
				t.Fatalf("%d outputs and %d grads, want 2 and 6", len(g.Outputs), len(g.Grads))
			}
			checkNonFinite(t, g, false, "b.weight")
		})
	}
}

// checkNonFinite fails unless every output and gradient of g matches the
// eager interpreter and the outputs and the named gradients hold NaN/Inf
// (where vsPyTorch, compared with PyTorch's too: present in both).
func checkNonFinite(t *testing.T, g GraphResult, vsPyTorch bool, grads ...string) {
	t.Helper()
	for i, o := range g.Outputs {
		j := o.VsEager
		if vsPyTorch {
			j = o.VsExpected
		}
		if o.VsEager == nil || !o.VsEager.Match || j == nil || j.NonFinite == 0 {
			t.Errorf("output %d: vs eager %+v; vs PyTorch %+v (want a match, with NaN/Inf)", i, o.VsEager, o.VsExpected)
		}
	}
	for _, gd := range g.Grads {
		if gd.VsEager == nil || !gd.VsEager.Match {
			t.Errorf("grad %s vs eager: %+v", gd.Name, gd.VsEager)
			continue
		}
		j := gd.VsEager
		if vsPyTorch {
			j = gd.VsExpected
		}
		if slices.Contains(grads, gd.Name) && (j == nil || j.NonFinite == 0) {
			t.Errorf("grad %s: no NaN/Inf compared (vs PyTorch %v): %+v", gd.Name, vsPyTorch, j)
		}
	}
}
