package render_test

import (
	"os"
	"strings"
	"testing"

	"gcdbg/render"
)

// The MLP's weight-gradient transposes (permute copies read with stride
// 512) are cut into 32x32 tiles; a contiguous copy is not. The values are
// checked against PyTorch by runner's compiled tests.
func TestTransposedCopyIsTiled(t *testing.T) {
	units := loadUnits(t, "../fixtures/mlp.json")
	for _, lp := range units[0].Programs {
		src := renderLP(t, units[0], lp, render.C, render.Options{})
		switch lp.Role {
		case "backward":
			k := kernelText(src.Code, "k10_permute_7(")
			if !strings.Contains(k, "x0t += 32") || !strings.Contains(k, "x1t += 32") || !strings.Contains(k, "collapse(2)") {
				t.Errorf("the transposing copy is not tiled:\n%s", k)
			}
		case "forward":
			if k := kernelText(src.Code, "k4_primals_4("); strings.Contains(k, "x0t") {
				t.Errorf("a contiguous copy was tiled:\n%s", k)
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
