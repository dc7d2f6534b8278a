package runner

import (
	"regexp"
	"strings"
	"testing"
)

// Sums of squares keep float partials in the vector lanes (render/reduce.go,
// floatLaneSum); other float sums keep double lanes. testdata/square_sums
// (layer_norm, RMSNorm, (y*y).sum and y.sum over rows of 1000 with NaN,
// ±Inf, -0, squares that overflow to +Inf or fall below the smallest
// normal, a large offset) renders the three square sums with float
// accumulators and the two plain sums with double ones, and the compiled
// outputs match PyTorch's and the eager interpreter's (the verdict also
// fails on NaN or Inf at any other position).
func TestFloatLaneSums(t *testing.T) {
	tr, units, src := renderFirstProgram(t, "testdata/square_sums.json")
	count := sumAccumulatorTypes(src.Code)
	if count["float"] != 3 || count["double"] != 2 || len(count) != 2 {
		t.Errorf("sum accumulators by type %v, want 3 float (the squares) and 2 double:\n%s", count, src.Code)
	}
	if !strings.Contains(src.Code, "a sum of squares keeps float partials") {
		t.Error("no kernel comment names the float-lane sums")
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "compiled" || !res.OK {
		t.Fatalf("backend %q: does not match:\n%s", res.Backend, res.Summary())
	}
	outs := res.Graphs[0].Outputs
	if len(outs) != 4 {
		t.Fatalf("%d outputs, want 4", len(outs))
	}
	for _, o := range outs {
		if o.VsExpected == nil || !o.VsExpected.Match {
			t.Errorf("output %d vs PyTorch: %+v", o.Index, o.VsExpected)
		}
		if o.VsEager == nil || !o.VsEager.Match {
			t.Errorf("output %d vs eager: %+v", o.Index, o.VsEager)
		}
	}
}

// A sum of squares longer than render's floatLaneMaxTerms keeps double
// lanes: float partials over a long reduction (BatchNorm's statistics over
// N*H*W) lose more than PyTorch's double accumulation; a short row's
// squares (1024) keep float lanes. The values match the eager interpreter.
func TestFloatLaneSumsOnlyShortReductions(t *testing.T) {
	tr, units, rs := renderGraphText(t, "long_squares.py", `def forward(self, x: "f32[4, 16384]", y: "f32[8, 1024]"):
    a = torch.sum(x * x, [1])
    b = torch.sum(y * y, [1])
    return (a, b)
`)
	count := sumAccumulatorTypes(rs.Code)
	if count["float"] != 1 || count["double"] != 1 {
		t.Errorf("sum accumulators by type %v, want 1 float (1024 squares) and 1 double (16384 squares):\n%s", count, rs.Code)
	}
	res, err := RunUnits(tr, units, Options{Runs: 1, Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range res.Graphs[0].Outputs {
		if o.VsEager == nil || !o.VsEager.Match {
			t.Errorf("output %d vs eager: %+v", o.Index, o.VsEager)
		}
	}
}

// sumAccumulatorTypes counts the C types of code's sum reductions' vector
// accumulators (omp simd reduction(+:t) clauses). Temporaries are named per
// kernel: a clause's accumulator is the latest declaration of its name
// above it.
func sumAccumulatorTypes(code string) map[string]int {
	decl := regexp.MustCompile(`^\s*(float|double) (t\d+) = 0;$`)
	clause := regexp.MustCompile(`reduction\(\+:(t\d+)\)`)
	types := map[string]string{}
	count := map[string]int{}
	for _, l := range strings.Split(code, "\n") {
		if m := decl.FindStringSubmatch(l); m != nil {
			types[m[2]] = m[1]
		}
		for _, m := range clause.FindAllStringSubmatch(l, -1) {
			count[types[m[1]]]++
		}
	}
	return count
}
