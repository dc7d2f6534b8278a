package compiler_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"

	"gcdbg/render"
)

// geluForms are the prelude's GELU functions (render/gelu.go), GELU in
// float64 without the cancellation of 1 + erf (1 + tanh), the decomposed
// graph's own float formula with erf / tanh rounded once (what PyTorch's
// decomposition computes), the bound over all 2^32 floats of the error in
// ULPs of max(|gelu(x)|, |x| / 2) (tools/fit_gelu.py --sweep), and where
// that maximum is.
var geluForms = []struct {
	name    string
	ref     func(x float64) float64
	formula func(x float32) float32
	bound   float64
	worst   float32
}{
	{"gcdbg_gelu_erff",
		func(x float64) float64 { return 0.5 * x * math.Erfc(-x/math.Sqrt2) },
		func(x float32) float32 { return (x * 0.5) * (float32(math.Erf(float64(x*0.70710677))) + 1) },
		6.12, -3.976599},
	{"gcdbg_gelu_tanhf",
		func(x float64) float64 {
			u := math.Sqrt(2/math.Pi) * (x + 0.044715*x*x*x)
			return x / (1 + math.Exp(-2*u))
		},
		func(x float32) float32 {
			inner := (x + ((x*x)*x)*0.044715) * 0.7978846
			return (x * 0.5) * (float32(math.Tanh(float64(inner))) + 1)
		},
		5.57, -3.534324},
}

// geluErr is the error of got in ULPs of max(|ref|, |x| / 2): the result's
// own ULP for x > 0, that of x / 2 in the negative tail, where the formula
// rounds 1 + erf near 1.
func geluErr(x float32, got, ref float64) float64 {
	return math.Abs(got-ref) / ulp32(math.Max(math.Abs(ref), 0.5*math.Abs(float64(x))))
}

// The prelude's GELU functions, which the renderer calls for the
// decomposition's two GELU forms (render/gelu.go), against GELU in float64
// on every 4099th float bit pattern, the 2^16 floats around the worst point
// of the sweep over all floats, and the special values: within their
// bounds, NaN, ±Inf and ±0 as the decomposed formula gives them (gelu(-Inf)
// is NaN there: -Inf * 0), inlined and vectorized. The table prints the
// formula's own error beside theirs.
func TestGELUFunctions(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no cc")
	}
	var src strings.Builder
	src.WriteString(render.C.Prelude)
	for _, f := range geluForms {
		fmt.Fprintf(&src, "void run_%s(const float *x, float *z, int64_t n) {\n  #pragma omp simd\n  for (int64_t i = 0; i < n; i++) z[i] = %s(x[i]);\n}\n", f.name, f.name)
	}
	dir := t.TempDir()
	c, lib := filepath.Join(dir, "g.c"), filepath.Join(dir, "g.so")
	if err := os.WriteFile(c, []byte(src.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(cc, "-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math", "-fopenmp", "-fPIC", "-shared",
		"-fopt-info-vec-optimized", "-o", lib, c, "-lm").CombinedOutput()
	if err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatal(err)
	}
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	var table []string
	for _, f := range geluForms {
		x := []float32{nan, inf, -inf, 0, negZero, 1, -1, 1e-30, -1e-30, 1e-45, -1e-45, 5.1, -5.1, 5.0, -5.0, 3e38, -3e38}
		for b := uint64(0); b < 1<<32; b += 4099 {
			x = append(x, math.Float32frombits(uint32(b)))
		}
		w := math.Float32bits(f.worst)
		for b := w - 1<<15; b < w+1<<15; b++ {
			x = append(x, math.Float32frombits(b))
		}
		z := make([]float32, len(x))
		var run func(unsafe.Pointer, unsafe.Pointer, int64)
		purego.RegisterLibFunc(&run, h, "run_"+f.name)
		run(unsafe.Pointer(&x[0]), unsafe.Pointer(&z[0]), int64(len(x)))
		worst, worstAt, formulaWorst := 0.0, 0, 0.0
		for i, xi := range x {
			got, want := z[i], f.formula(xi)
			g64, w64 := float64(got), float64(want)
			if math.IsNaN(g64) != math.IsNaN(w64) || (math.IsInf(g64, 0) || math.IsInf(w64, 0)) && got != want ||
				got == 0 && want == 0 && math.Signbit(g64) != math.Signbit(w64) {
				t.Errorf("%s(%v) = %v; the decomposed formula gives %v", f.name, xi, got, want)
			}
			if math.IsNaN(float64(xi)) || math.IsInf(float64(xi), 0) {
				continue
			}
			ref := f.ref(float64(xi))
			if e := geluErr(xi, g64, ref); e > worst {
				worst, worstAt = e, i
			}
			formulaWorst = math.Max(formulaWorst, geluErr(xi, w64, ref))
		}
		table = append(table, fmt.Sprintf("| %s | %.2f | %.2f |", f.name, worst, formulaWorst))
		if worst > f.bound {
			t.Errorf("%s: %.2f ULP at x=%v (got %v, float64 %v); its bound is %g", f.name, worst, x[worstAt], z[worstAt], f.ref(float64(x[worstAt])), f.bound)
		}
	}
	t.Logf("\n| function | max error (ULPs of max(|gelu|, |x|/2)) | the float formula's |\n| --- | --- | --- |\n%s", strings.Join(table, "\n"))
	if got := strings.Count(string(out), "loop vectorized"); got < len(geluForms) {
		t.Errorf("%d loops vectorized, want %d:\n%s", got, len(geluForms), out)
	}
	if nm, err := exec.Command("nm", "-D", "--undefined-only", lib).Output(); err == nil && strings.Contains(string(nm), "gelu") {
		t.Errorf("a GELU function is called, not inlined:\n%s", nm)
	}
}
