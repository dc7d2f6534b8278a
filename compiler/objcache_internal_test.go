package compiler

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// handProgram is a two-kernel program in the renderer's layout (k0_a,
// k1_b); extra is pasted into its prelude.
func handProgram(extra string) Program {
	return handProgramN(2, extra, nil)
}

// handProgramN is an n-kernel program in the renderer's layout: kernel i
// is ki_NAME (a, b, then x2, x3, ...) and stores i+1 (or stmt(i), when
// stmt is set and gives one) at x[i].
func handProgramN(n int, extra string, stmt func(i int) string) Program {
	var b strings.Builder
	b.WriteString("/* hand */\n#include <stdint.h>\n" + extra + "int gcdbg_probe(void) {\n  return 1;\n}\n")
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("k%d_x%d", i, i)
		if i < 2 {
			names[i] = fmt.Sprintf("k%d_%c", i, 'a'+i)
		}
		s := fmt.Sprintf("x[%d] = %d;", i, i+1)
		if stmt != nil && stmt(i) != "" {
			s = stmt(i)
		}
		fmt.Fprintf(&b, "\n// kernel %d: %s\nstatic void %s(float *x) {\n  %s\n}\n", i, names[i][strings.IndexByte(names[i], '_')+1:], names[i], s)
	}
	b.WriteString("\nvoid gcdbg_seg0(char **bufs, const int64_t *syms, double *kernel_seconds, volatile int32_t *current_kernel) {\n")
	for _, nm := range names {
		b.WriteString("  " + nm + "((float *)bufs[0]);\n")
	}
	b.WriteString("  (void)syms; (void)kernel_seconds; (void)current_kernel;\n}\n")
	code := b.String()
	lines := strings.Split(code, "\n")
	line := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i + 1
			}
		}
		return 0
	}
	ks := make([]KernelSpec, n)
	for i, nm := range names {
		ks[i] = KernelSpec{Index: i, Name: nm, Line: line(fmt.Sprintf("// kernel %d:", i))}
	}
	return Program{Code: code, Ext: ".c", Manifest: Manifest{Graph: "hand", Role: "inference", Steps: []Step{{
		Kind: "segment", Entry: "gcdbg_seg0", Kernels: ks,
	}}}}
}

// unitOf is the name of the part whose unit defines kernel name.
func unitOf(parts []part, name string) string {
	for _, p := range parts {
		if p.name != "entry" && strings.Contains(p.text, hidden+"void "+name+"(") {
			return p.name
		}
	}
	return ""
}

// The split keeps every kernel's text once, made external and hidden, the
// prelude's exported function in the entry points' unit only, and the
// kernels' prototypes there.
func TestSplitProgram(t *testing.T) {
	parts, ok := splitProgram(handProgram(""))
	if !ok || len(parts) < 2 || parts[len(parts)-1].name != "entry" {
		t.Fatalf("split: ok %v, %d parts", ok, len(parts))
	}
	entry := parts[len(parts)-1].text
	for _, k := range []string{"k0_a", "k1_b"} {
		n := 0
		for _, p := range parts[:len(parts)-1] {
			n += strings.Count(p.text, "void "+k+"(float *x) {")
			if strings.Contains(p.text, "static void k") || !strings.Contains(p.text, "static int gcdbg_probe(void) {") {
				t.Errorf("unit %s keeps a static kernel or exports gcdbg_probe:\n%s", p.name, p.text)
			}
		}
		if n != 1 {
			t.Errorf("%s defined %d times in the kernels' units", k, n)
		}
		if !strings.Contains(entry, hidden+"void "+k+"(float *x);") {
			t.Errorf("no prototype of %s in the entry points' unit:\n%s", k, entry)
		}
	}
	if !strings.Contains(entry, "\nint gcdbg_probe(void) {") || !strings.Contains(entry, "void gcdbg_seg0(") {
		t.Errorf("the entry points' unit does not export gcdbg_probe or lacks gcdbg_seg0:\n%s", entry)
	}
	bad := handProgram("")
	bad.Manifest.Steps[0].Kernels[1].Name = "k9_missing"
	if _, ok := splitProgram(bad); ok {
		t.Errorf("a kernel whose definition is missing was split")
	}
}

// Many kernels are compiled in groups, not one unit each: the groups end
// where a kernel's text says so (endsGroup) or at groupMax kernels, every
// kernel is in one group, in order, and a change to one kernel's text
// changes its own group's unit only.
func TestSplitGroupsKernels(t *testing.T) {
	const n = 300
	p := handProgramN(n, "", nil)
	parts, ok := splitProgram(p)
	if !ok {
		t.Fatal("not split")
	}
	groups := parts[:len(parts)-1]
	if len(groups) < n/groupMax || len(groups) > n/4 {
		t.Errorf("%d kernels in %d groups; want about %d kernels a group", n, len(groups), groupEvery)
	}
	next := 0 // the next kernel expected, in order
	for _, g := range groups {
		size := 0
		for strings.Contains(g.text, fmt.Sprintf(hidden+"void k%d_", next)) {
			size++
			next++
		}
		if size == 0 || size > groupMax || strings.Count(g.text, hidden+"void k") != size {
			t.Fatalf("group %s: %d kernels in order, %d in all (max %d)", g.name, size, strings.Count(g.text, hidden+"void k"), groupMax)
		}
		// The group ends where its last kernel's text says so, at the cap,
		// or at the program's last kernel.
		last := g.text[strings.LastIndex(g.text, "\n// kernel ")+1:]
		if !endsGroup(last[:strings.Index(last, "{")]) && size != groupMax && next != n {
			t.Errorf("group %s ends at a kernel that does not end a group", g.name)
		}
		// #line directives map every kernel to its line in the program.
		if c := strings.Count(g.cc, "#line "); c != size+1 {
			t.Errorf("group %s: %d #line directives for %d kernels", g.name, c, size)
		}
	}
	if next != n {
		t.Fatalf("groups hold kernels 0..%d of %d", next-1, n)
	}
	// Edit one kernel in the middle: only its group's unit changes (and the
	// entry points' unit keeps its text: the kernel's signature is the same).
	edited, _ := splitProgram(handProgramN(n, "", func(i int) string {
		if i == n/2 {
			return "x[0] = -1;"
		}
		return ""
	}))
	if len(edited) != len(parts) {
		t.Fatalf("an edit of one kernel's body regrouped the program: %d units, was %d", len(edited), len(parts))
	}
	changed := []string{}
	for i := range parts {
		if parts[i].text != edited[i].text {
			changed = append(changed, parts[i].name)
		}
	}
	if len(changed) != 1 || changed[0] != unitOf(parts, fmt.Sprintf("k%d_x%d", n/2, n/2)) {
		t.Errorf("units changed by editing kernel %d: %v", n/2, changed)
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
	parts, _ := splitProgram(handProgram(""))
	if art.ObjectsBuilt != len(parts) {
		t.Errorf("built %d objects, want %d", art.ObjectsBuilt, len(parts))
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
	parts, _ := splitProgram(p)
	for _, want := range []string{"(unit of " + unitOf(parts, "k1_b") + ")", "kernel.c:" + strconv.Itoa(bad) + ": error:", "in generated kernel k1_b", "not C;"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
}
