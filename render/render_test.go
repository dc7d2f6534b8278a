package render_test

import (
	"strings"
	"testing"

	"gcdbg/render"
)

func TestIdentAndComment(t *testing.T) {
	for in, want := range map[string]string{"int": "b_int", "a\"b;c": "b_a_b_c", "ünï": "b_n", "": "b", "0x": "b_0x"} {
		if got := render.Ident("b_", in); got != want {
			t.Errorf("Ident(%q) = %q, want %q", in, got, want)
		}
	}
	c := render.Comment("x */ y /* z\nw ☃ \\")
	if strings.Contains(c, "*/") || strings.Contains(c, "/*") || strings.Contains(c, "\n") || strings.HasSuffix(c, "\\") || c != strings.ToValidUTF8(c, "") {
		t.Errorf("Comment left something unsafe: %q", c)
	}
	if !strings.Contains(c, "\\u2603") {
		t.Errorf("Comment should escape non-ASCII: %q", c)
	}
}

// Every program of every fixture and zoo trace renders in the C dialect
// (built and run in package compiler's tests) and, as far as the data
// goes, in the CUDA and OpenCL dialects.
func TestRenderEveryProgram(t *testing.T) {
	for _, path := range allTraces() {
		for _, u := range loadUnits(t, path) {
			for _, lp := range u.Programs {
				src := renderLP(t, u, lp, render.C, render.Options{})
				if len(src.Manifest.Steps) == 0 || !strings.Contains(src.Code, "void gcdbg_seg0(") && src.Manifest.Steps[0].Kind == "segment" {
					t.Errorf("%s %s/%s: no entry point", path, u.Captured.Name, lp.Role)
				}
				for _, d := range []render.Dialect{render.CUDA, render.OpenCL} {
					if s := renderLP(t, u, lp, d, render.Options{}); strings.Contains(s.Code, "gcdbg_seg") {
						t.Errorf("%s: %s source has a CPU entry point", path, d.Name)
					}
				}
			}
		}
	}
}
