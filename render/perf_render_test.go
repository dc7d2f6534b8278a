package render_test

import (
	"os"
	"strings"
	"testing"

	"gcdbg/render"
)

// The MLP's weight-gradient transposes are written by the GEMM itself
// (C^T = B^T A^T) rather than copied out of its result, and the forward's
// saved primals are the input slots, not copies. The values are checked
// against PyTorch by runner's compiled tests.
func TestTransposedGEMMOutputAndAliasedInputs(t *testing.T) {
	units := loadUnits(t, "../fixtures/mlp.json")
	for _, lp := range units[0].Programs {
		src := renderLP(t, units[0], lp, render.C, render.Options{})
		switch lp.Role {
		case "backward":
			if len(src.Kernels) != 8 {
				t.Errorf("backward: %d kernels, want 8 (13 less the three transposing copies, less the two relu masks computed in their mm's epilogue: sched/epilogue_inputs.go)", len(src.Kernels))
			}
			for _, k := range src.Kernels {
				if strings.HasPrefix(k.Name, "k") && strings.Contains(k.Name, "permute") && k.Kind != "extern" {
					t.Errorf("backward: a copy kernel %s (%s) is left", k.Name, k.Kind)
				}
			}
			if k := kernelText(src.Code, "k7_mm_4("); !strings.Contains(k, "written transposed") {
				t.Errorf("mm_4 does not write its output transposed:\n%s", k)
			}
		case "forward":
			if len(src.Kernels) != 3 {
				t.Errorf("forward: %d kernels, want 3 (the three Linear layers)", len(src.Kernels))
			}
			if aliased := inputSlotOutputs(src); aliased != 3 {
				t.Errorf("forward: %d outputs are input slots, want 3 (x, W2, W3 saved)", aliased)
			}
		}
	}
}

// The crash hook puts a faulting store in the named kernel only.
func TestCrashHook(t *testing.T) {
	t.Setenv(render.CrashKernelEnv, "1")
	units := loadUnits(t, "../fixtures/mlp.json")
	src := renderLP(t, units[0], units[0].Programs[0], render.C, render.Options{})
	if n := strings.Count(src.Code, "gcdbg_test_crash = 0"); n != 1 {
		t.Fatalf("%d crash stores, want 1", n)
	}
	if k := kernelText(src.Code, "k1_"); !strings.Contains(k, "gcdbg_test_crash") {
		t.Errorf("the crash is not in kernel 1:\n%s", k)
	}
	os.Unsetenv(render.CrashKernelEnv)
	if src := renderLP(t, units[0], units[0].Programs[0], render.C, render.Options{}); strings.Contains(src.Code, "gcdbg_test_crash") {
		t.Error("crash hook without the variable")
	}
}

// kernelText is the definition of the kernel whose name starts with name.
func kernelText(code, name string) string {
	i := strings.Index(code, "static void "+name)
	if i < 0 {
		return ""
	}
	end := strings.Index(code[i:], "\n}\n")
	if end < 0 {
		return code[i:]
	}
	return code[i : i+end]
}
