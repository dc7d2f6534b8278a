package runner

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gcdbg/compiler"
)

// An unrolled recurrence (testdata/models/rnn_share_train.py: nn.LSTMCell
// over 12 steps and a Linear head, exported from PyTorch in training)
// renders the same kernels once per step; each repeat calls the first
// one's C function with its own buffers and, where the code reads a
// choice by measurement, its own choice index (render/kernel_share.go).
// The program defines fewer functions than it has kernels, every repeat
// names a function the source defines, the split build still compiles
// the kernels in groups, and the compiled run matches PyTorch's outputs
// and gradients.
func TestRepeatedKernelsShareOneFunction(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	tr, units := loadUnits(t, "testdata/rnn_share_train.json")
	def := regexp.MustCompile(`(?m)^static void (k\d+_\w+)\(([^)]*)\) \{`)
	for _, lp := range units[0].Programs {
		src := lp.Source
		if src == nil {
			t.Fatalf("%s: not rendered", lp.Role)
		}
		defined := map[string]string{} // function -> its parameters
		for _, m := range def.FindAllStringSubmatch(src.Code, -1) {
			defined[m[1]] = m[2]
		}
		repeats, withChoice := 0, 0
		for _, k := range src.Kernels {
			if k.Shares == "" {
				if _, ok := defined[k.Name]; !ok {
					t.Errorf("%s: kernel %s is not defined in the source", lp.Role, k.Name)
				}
				continue
			}
			repeats++
			params, ok := defined[k.Shares]
			if !ok {
				t.Errorf("%s: kernel %s shares %s, which the source does not define", lp.Role, k.Name, k.Shares)
				continue
			}
			if _, ok := defined[k.Name]; ok {
				t.Errorf("%s: repeat %s is defined too", lp.Role, k.Name)
			}
			// Its call site in the entry points calls the shared function,
			// passing its own index when the function reads a choice.
			call := regexp.MustCompile(`\n  ` + regexp.QuoteMeta(k.Shares) + `\(([^;]*)\);\n  if \(kernel_seconds\) kernel_seconds\[` + strconv.Itoa(k.Index) + `\]`)
			m := call.FindStringSubmatch(src.Code)
			if m == nil {
				t.Errorf("%s: no call of %s for kernel %d (%s)", lp.Role, k.Shares, k.Index, k.Name)
				continue
			}
			if strings.Contains(params, "gcdbg_ci") {
				withChoice++
				if !strings.HasSuffix(m[1], ", "+strconv.Itoa(k.Index)) {
					t.Errorf("%s: kernel %d calls %s(%s) without its choice index", lp.Role, k.Index, k.Shares, m[1])
				}
			}
		}
		if repeats == 0 || len(defined) >= len(src.Kernels) {
			t.Errorf("%s: %d functions for %d kernels, %d repeats: the steps' kernels are not shared", lp.Role, len(defined), len(src.Kernels), repeats)
		}
		if lp.Role == "forward" && withChoice == 0 {
			t.Errorf("%s: no shared GEMM kernel passes its choice index", lp.Role)
		}
		art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", lp.Role, err)
		}
		if art.ObjectsBuilt < 2 {
			t.Errorf("%s: built as %d objects: the split into kernel groups failed on the shared functions", lp.Role, art.ObjectsBuilt)
		}
		t.Logf("%s: %d kernels, %d functions, %d repeats (%d passing a choice index), %d objects", lp.Role, len(src.Kernels), len(defined), repeats, withChoice, art.ObjectsBuilt)
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "compiled" || !res.OK {
		t.Fatalf("backend %q: does not match PyTorch:\n%s", res.Backend, res.Summary())
	}
	if g := res.Graphs[0]; len(g.Fallback) != 0 || len(g.Outputs) != 1 || len(g.Grads) != 6 {
		t.Errorf("fallbacks %v, %d outputs, %d grads compared; want none, 1, 6", g.Fallback, len(g.Outputs), len(g.Grads))
	}
}
