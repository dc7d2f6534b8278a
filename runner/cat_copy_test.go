package runner

import (
	"regexp"
	"strings"
	"testing"
)

// A kernel that is one cat alone is written as one copy loop per input
// (render/cat_copy.go) instead of a body loading every input at every
// point: cats along the first, a middle and a new dim (stack), uneven
// parts, strided views (a slice, selects of one tensor), float16 storage
// and a promoting float16+float32 cat; two 5-input cats of the same inputs,
// which fused as siblings would run the select body (sched/cat_alone.go
// keeps a cat of more than 4 inputs alone). Every cat's kernel is copy loops
// with no select among inputs, and the compiled outputs equal the eager
// interpreter's exactly (a copy) and match through the verdict.
func TestCatKernelsCopyEachInput(t *testing.T) {
	tr, units, rs := renderGraphText(t, "cats.py", `def forward(self, a: "f32[4, 3, 5]", b: "f32[4, 1, 5]", c: "f32[4, 7, 5]", h: "f16[6, 8]", k: "f16[2, 8]", e: "f32[3, 8]", big: "f32[64, 24, 48]", v: "f32[5, 4, 8]"):
    x = torch.cat([a, b, c], 1)
    y = torch.stack([a, c[:, 2:5], a], 0)
    z = torch.cat([h, k], 0)
    p = torch.cat([k, e], 0)
    s = torch.stack([big[:, 0], big[:, 5], big[:, 23], big[:, 1]], 1)
    u = torch.cat([v[0], v[1], v[2], v[3], v[4]], 0)
    w = torch.stack([v[0], v[1], v[2], v[3], v[4]], 1)
    return (x, y, z, p, s, u, w)
`)
	kernels := regexp.MustCompile(`(?s)static void (k\d+_\w+)\(.*?\n}\n`).FindAllStringSubmatch(rs.Code, -1)
	copies := 0
	for _, k := range kernels {
		if !strings.Contains(k[0], "one copy loop per input") {
			continue
		}
		copies++
		if strings.Contains(k[0], " ? ") {
			t.Errorf("%s selects among its inputs:\n%s", k[1], k[0])
		}
	}
	if copies != 7 {
		t.Errorf("%d kernels are copy loops, want the 7 cats:\n%s", copies, rs.Code)
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "compiled" || !res.OK {
		t.Fatalf("backend %q: does not match:\n%s", res.Backend, res.Summary())
	}
	outs := res.Graphs[0].Outputs
	if len(outs) != 7 {
		t.Fatalf("%d outputs, want 7", len(outs))
	}
	for _, o := range outs {
		if o.VsEager == nil || !o.VsEager.Match || o.VsEager.MaxAbsErr != 0 {
			t.Errorf("output %d vs eager: %+v, want equal", o.Index, o.VsEager)
		}
	}
}
