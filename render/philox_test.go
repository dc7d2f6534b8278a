package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gcdbg/tensor"
)

// The generated C's Philox draws exactly what the eager interpreter draws
// (tensor.PhiloxUniform), counter by counter, for several seeds and
// counters past 2^32.
func TestPhiloxCMatchesEager(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	type pt struct{ seed, ctr uint64 }
	var pts []pt
	for _, s := range []uint64{0, 1, 0xdeadbeef, 1 << 33} {
		for _, c := range []uint64{0, 1, 2, 3, 1000, 1<<32 - 1, 1 << 32, 1<<40 + 7} {
			pts = append(pts, pt{s, c})
		}
	}
	var main strings.Builder
	main.WriteString("#include <stdio.h>\n#include <stdint.h>\n" + philoxPreludeC + "int main(void) {\n")
	for _, p := range pts {
		main.WriteString("\tprintf(\"%.17g\\n\", gcdbg_philox_uniform(" + strconv.FormatUint(p.seed, 10) + ".0, " + strconv.FormatUint(p.ctr, 10) + ".0));\n")
	}
	main.WriteString("\treturn 0;\n}\n")
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "philox.c"), filepath.Join(dir, "philox")
	if err := os.WriteFile(src, []byte(main.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O2", "-std=c11", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(pts) {
		t.Fatalf("%d values, want %d", len(lines), len(pts))
	}
	distinct := map[float64]bool{}
	for i, p := range pts {
		got, err := strconv.ParseFloat(lines[i], 64)
		if err != nil {
			t.Fatal(err)
		}
		if want := tensor.PhiloxUniform(p.seed, p.ctr); got != want {
			t.Errorf("seed %d counter %d: C %v, Go %v", p.seed, p.ctr, got, want)
		}
		distinct[got] = true
	}
	if len(distinct) < len(pts)-1 {
		t.Errorf("only %d distinct draws of %d", len(distinct), len(pts))
	}
	if C.Ops["philox_uniform"] == "" || !strings.Contains(C.Prelude, "gcdbg_philox_uniform") {
		t.Error("the C dialect does not spell philox_uniform")
	}
}
