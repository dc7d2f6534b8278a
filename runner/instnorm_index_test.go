package runner

import (
	"regexp"
	"strings"
	"testing"

	"gcdbg/render"
	"gcdbg/stages"
)

// InstanceNorm2d(affine) in training (testdata/models/instnorm_affine_train.py,
// SRResNet's blocks): the backward kernels that sum the weight and bias
// gradients per channel also compute dx over the [N*C, H*W] rows, whose
// index divided a flat offset by C*H*W per element
// ((576*x0 + r2 + 12*r1 + 144*r0) / 1152): a 64-bit division in the
// vector loop (sr_resnet's five such kernels at 8 GB/s). loopir/divsplit.go
// folds it through a divisor of the constant, so no index of the backward
// program divides a reduction variable any more, and the compiled program
// still matches PyTorch and the eager interpreter, outputs and gradients.
func TestInstanceNormGradIndexHasNoInnerDivision(t *testing.T) {
	tr, units, _ := renderFirstProgram(t, "testdata/instnorm_affine_train.json")
	src := renderBackwardProgram(t, units, "instnorm_affine_train.json")
	// a / or % whose left side reads a reduction variable (r0, r1, r2)
	inner := regexp.MustCompile(`\(([^()]*\br[0-9]\b[^()]*)\) [/%] [0-9]+\)`)
	fused := 0
	for _, k := range strings.Split(src.Code, "// kernel ")[1:] {
		if !strings.Contains(k, "reduction") || !strings.Contains(k, "#pragma omp simd reduction") {
			continue
		}
		fused++
		if m := inner.FindString(k); m != "" {
			t.Errorf("backward kernel divides a reduction variable in an index (%s):\n%s", m, k)
		}
	}
	if fused == 0 {
		t.Fatalf("no reduction kernel in the backward program:\n%s", src.Code)
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graphs[0]
	if !res.OK || len(g.Outputs) != 2 || len(g.Grads) != 16 {
		t.Errorf("compiled InstanceNorm blocks do not match PyTorch (%d outputs, %d grads):\n%s", len(g.Outputs), len(g.Grads), res.Summary())
	}
	checkAllMatch(t, g, "")
}

// renderBackwardProgram renders the second program (a training graph's
// backward) of units[0] in the C dialect, as renderUnits does the first.
func renderBackwardProgram(t *testing.T, units []*stages.Unit, name string) *render.Source {
	t.Helper()
	if len(units[0].Programs) < 2 {
		t.Fatalf("%d programs, want forward and backward", len(units[0].Programs))
	}
	lp := units[0].Programs[1]
	src, err := render.Render(lp.Loops, lp.Schedule.Kernels, lp.Memory, render.C,
		render.Options{Trace: name, Graph: units[0].Captured.Name, Role: lp.Role})
	if err != nil {
		t.Fatal(err)
	}
	return src
}
