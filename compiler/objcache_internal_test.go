package compiler

import (
	"strconv"
	"strings"
	"testing"
)

// handProgram is a two-kernel program in the renderer's layout; extra is
// pasted into its prelude.
func handProgram(extra string) Program {
	code := "/* hand */\n#include <stdint.h>\n" + extra + "int gcdbg_probe(void) {\n  return 1;\n}\n" +
		"\n// kernel 0: a\nstatic void k0_a(float *x) {\n  x[0] = 1;\n}\n" +
		"\n// kernel 1: b\nstatic void k1_b(float *x) {\n  x[1] = 2;\n}\n" +
		"\nvoid gcdbg_seg0(char **bufs, const int64_t *syms, double *kernel_seconds, volatile int32_t *current_kernel) {\n" +
		"  k0_a((float *)bufs[0]);\n  k1_b((float *)bufs[0]);\n  (void)syms; (void)kernel_seconds; (void)current_kernel;\n}\n"
	lines := strings.Split(code, "\n")
	line := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i + 1
			}
		}
		return 0
	}
	return Program{Code: code, Ext: ".c", Manifest: Manifest{Graph: "hand", Role: "inference", Steps: []Step{{
		Kind: "segment", Entry: "gcdbg_seg0",
		Kernels: []KernelSpec{{Index: 0, Name: "k0_a", Line: line("// kernel 0")}, {Index: 1, Name: "k1_b", Line: line("// kernel 1")}},
	}}}}
}

// The split keeps every kernel's text once and the prelude's exported
// function in the entry points' unit only.
func TestSplitProgram(t *testing.T) {
	parts, ok := splitProgram(handProgram(""))
	if !ok || len(parts) != 3 {
		t.Fatalf("split: ok %v, %d parts", ok, len(parts))
	}
	for i, want := range []string{"void k0_a(float *x) {", "void k1_b(float *x) {", "void gcdbg_seg0("} {
		if !strings.Contains(parts[i].text, want) || strings.Contains(parts[i].text, "static void k") {
			t.Errorf("part %d (%s) lacks %q or keeps a static kernel:\n%s", i, parts[i].name, want, parts[i].text)
		}
	}
	if !strings.Contains(parts[0].text, "static int gcdbg_probe(void) {") || !strings.Contains(parts[2].text, "\nint gcdbg_probe(void) {") {
		t.Errorf("gcdbg_probe is not local to the kernels' units and exported by the entry points'")
	}
	if strings.Contains(parts[0].text, "k1_b") || !strings.Contains(parts[2].text, hidden+"void k1_b(float *x);") {
		t.Errorf("kernel units or prototypes are wrong:\n%s\n%s", parts[0].text, parts[2].text)
	}
	bad := handProgram("")
	bad.Manifest.Steps[0].Kernels[1].Name = "k9_missing"
	if _, ok := splitProgram(bad); ok {
		t.Errorf("a kernel whose definition is missing was split")
	}
}

// A prelude global defined in every unit fails the link: the program is
// then built whole, not reported as broken.
func TestLinkFailureBuildsWhole(t *testing.T) {
	art, err := Build(handProgram("int gcdbg_global = 0;\n"), Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if art.ObjectsBuilt != 0 || art.Hit {
		t.Errorf("built %d objects, hit %v; want a whole-program build", art.ObjectsBuilt, art.Hit)
	}
	art, err = Build(handProgram(""), Options{CacheDir: t.TempDir(), Flags: []string{"-Werror"}})
	if err != nil {
		t.Fatal(err)
	}
	if art.ObjectsBuilt != 3 {
		t.Errorf("built %d objects, want 3", art.ObjectsBuilt)
	}
}

// A compile error in a kernel's unit is reported at the full program's
// line (the unit's #line directives), naming the kernel.
func TestUnitErrorPointsAtProgramLine(t *testing.T) {
	p := handProgram("")
	p.Code = strings.Replace(p.Code, "x[1] = 2;", "x[1] = 2; not C;", 1)
	bad := 0
	for i, l := range strings.Split(p.Code, "\n") {
		if strings.Contains(l, "not C;") {
			bad = i + 1
		}
	}
	_, err := Build(p, Options{CacheDir: t.TempDir()})
	if err == nil {
		t.Fatal("bad C compiled")
	}
	for _, want := range []string{"unit of k1_b", "kernel.c:" + strconv.Itoa(bad) + ": error:", "in generated kernel k1_b", "not C;"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
}
