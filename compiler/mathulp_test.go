package compiler_test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"

	"gcdbg/compiler"
	"gcdbg/interp"
	"gcdbg/render"
)

// vecFuncs are the float32 libm functions the generated C calls inside
// simd loops, each with its float64 reference (Go's math, < 1 ULP in
// float64) and the inputs it is sampled on.
var vecFuncs = []struct {
	name   string
	ref    func(x, y float64) float64
	lo, hi float64 // sample range (log-uniform in magnitude when lo > 0 == false)
	two    bool
}{
	{"expf", func(x, _ float64) float64 { return math.Exp(x) }, -104, 89, false},
	{"logf", func(x, _ float64) float64 { return math.Log(x) }, 0, 3e38, false},
	{"sinf", func(x, _ float64) float64 { return math.Sin(x) }, -1e4, 1e4, false},
	{"cosf", func(x, _ float64) float64 { return math.Cos(x) }, -1e4, 1e4, false},
	{"tanf", func(x, _ float64) float64 { return math.Tan(x) }, -1e4, 1e4, false},
	{"tanhf", func(x, _ float64) float64 { return math.Tanh(x) }, -20, 20, false},
	{"sinhf", func(x, _ float64) float64 { return math.Sinh(x) }, -89, 89, false},
	{"coshf", func(x, _ float64) float64 { return math.Cosh(x) }, -89, 89, false},
	{"asinf", func(x, _ float64) float64 { return math.Asin(x) }, -1, 1, false},
	{"acosf", func(x, _ float64) float64 { return math.Acos(x) }, -1, 1, false},
	{"atanf", func(x, _ float64) float64 { return math.Atan(x) }, -1e6, 1e6, false},
	{"asinhf", func(x, _ float64) float64 { return math.Asinh(x) }, -1e6, 1e6, false},
	{"acoshf", func(x, _ float64) float64 { return math.Acosh(x) }, 1, 1e6, false},
	{"atanhf", func(x, _ float64) float64 { return math.Atanh(x) }, -1, 1, false},
	{"erff", func(x, _ float64) float64 { return math.Erf(x) }, -6, 6, false},
	{"erfcf", func(x, _ float64) float64 { return math.Erfc(x) }, -6, 10, false},
	{"expm1f", func(x, _ float64) float64 { return math.Expm1(x) }, -20, 88, false},
	{"exp2f", func(x, _ float64) float64 { return math.Exp2(x) }, -149, 127, false},
	{"log1pf", func(x, _ float64) float64 { return math.Log1p(x) }, -1, 1e6, false},
	{"log2f", func(x, _ float64) float64 { return math.Log2(x) }, 0, 3e38, false},
	{"log10f", func(x, _ float64) float64 { return math.Log10(x) }, 0, 3e38, false},
	{"powf", math.Pow, 0, 100, true},
	{"atan2f", math.Atan2, -100, 100, true},
	{"gcdbg_erff", func(x, _ float64) float64 { return math.Erf(x) }, -6, 6, false},
	{"gcdbg_tanhf", func(x, _ float64) float64 { return math.Tanh(x) }, -20, 20, false},
}

// inlineBound is the ULP bound of the prelude's own functions
// (render/erf_tanh.go: no libmvec call; libmvec's functions are held to
// its documented 4): their maximum over all 2^32 floats (8.16 and 7.28,
// docs/performance.md; tools/fit_erf_tanh.py --sweep), whose fits are a
// degree lower than libm's accuracy would need, traded for speed. They are
// also swept over every 4099th float bit pattern (denormals, the ±1
// saturation, NaNs and infinities included) and checked as odd functions
// bounded by 1: the result has the sign of x (-0 included), |f(x)| <= 1,
// f(±Inf) = ±1 exactly.
var inlineBound = map[string]float64{"gcdbg_erff": 8.17, "gcdbg_tanhf": 7.29}

// inlineWorst is where that maximum is (the sweep's x).
var inlineWorst = map[string]float32{"gcdbg_erff": 0.433713, "gcdbg_tanhf": 6.78699}

// The vector math the generated C uses (glibc's libmvec through the
// prelude's simd declarations, no -ffast-math): every function's loop is
// vectorized, its error against float64 is at most 4 ULP of float32 on
// 200,000 samples across its domain (glibc's documented bound for
// libmvec), and NaN, ±Inf and ±0 inputs give what C99 Annex F (and
// PyTorch) give: NaN stays NaN, exp(-Inf) = 0, tanh(±Inf) = ±1, the odd
// functions keep -0. The prelude's own inline erf and tanh
// (gcdbg_erff, gcdbg_tanhf: render/erf_tanh.go) are held to their bounds
// in inlineBound. `go test -v -run VectorMathULP ./compiler` prints the
// table docs/performance.md quotes.
func TestVectorMathULP(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no cc")
	}
	mvec, _ := exec.Command(cc, "-print-file-name=libmvec.so").Output()
	if !strings.Contains(string(mvec), "/") {
		t.Skip("no libmvec: the scalar libm is used")
	}
	var src strings.Builder
	src.WriteString(render.C.Prelude)
	for _, f := range vecFuncs {
		if f.two {
			fmt.Fprintf(&src, "void run_%s(const float *x, const float *y, float *z, int64_t n) {\n  #pragma omp simd\n  for (int64_t i = 0; i < n; i++) z[i] = %s(x[i], y[i]);\n}\n", f.name, f.name)
		} else {
			fmt.Fprintf(&src, "void run_%s(const float *x, const float *y, float *z, int64_t n) {\n  #pragma omp simd\n  for (int64_t i = 0; i < n; i++) z[i] = %s(x[i]);\n}\n", f.name, f.name)
		}
	}
	dir := t.TempDir()
	c, lib := filepath.Join(dir, "m.c"), filepath.Join(dir, "m.so")
	if err := os.WriteFile(c, []byte(src.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(cc, "-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math", "-fopenmp", "-fPIC", "-shared", "-DGCDBG_MVEC",
		"-fopt-info-vec-optimized", "-o", lib, c, "-lmvec", "-lm").CombinedOutput()
	if err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	const n = 200000
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1, -1, 0.5}
	var table []string
	for _, f := range vecFuncs {
		x, y, z := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = sample(rng, f.lo, f.hi), sample(rng, f.lo, f.hi)
			if f.name == "powf" {
				y[i] = float32(rng.Float64()*20 - 10)
			}
		}
		ns := len(specials)
		for i, s := range specials {
			x[i] = s
			y[i] = 2
			if f.two {
				x[ns+i], y[ns+i] = 3, s
			}
		}
		bound, inline := inlineBound[f.name]
		if !inline {
			bound = 4
		} else {
			// every 4099th bit pattern, after the random samples, and
			// the 2^16 floats around the worst point of the sweep over
			// all floats, so that the bound is met
			for b := uint64(0); b < 1<<32; b += 4099 {
				x = append(x, math.Float32frombits(uint32(b)))
			}
			w := math.Float32bits(inlineWorst[f.name])
			for b := w - 1<<15; b < w+1<<15; b++ {
				x = append(x, math.Float32frombits(b))
			}
			y, z = append(y, make([]float32, len(x)-len(y))...), make([]float32, len(x))
		}
		var run func(unsafe.Pointer, unsafe.Pointer, unsafe.Pointer, int64)
		purego.RegisterLibFunc(&run, h, "run_"+f.name)
		run(unsafe.Pointer(&x[0]), unsafe.Pointer(&y[0]), unsafe.Pointer(&z[0]), int64(len(x)))
		worst, worstAt := 0.0, 0
		var ulps []float64
		for i := range x {
			ref := f.ref(float64(x[i]), float64(y[i]))
			got := float64(z[i])
			if inline && !math.IsNaN(got) && (math.Signbit(got) != math.Signbit(float64(x[i])) || math.Abs(got) > 1 ||
				math.IsInf(float64(x[i]), 0) && math.Abs(got) != 1) {
				t.Errorf("%s(%v) = %v: want the sign of x, |%s| <= 1 and ±1 at ±Inf", f.name, x[i], got, f.name)
			}
			switch {
			case math.IsNaN(ref) || math.IsNaN(got):
				if math.IsNaN(ref) != math.IsNaN(got) {
					t.Errorf("%s(%v, %v) = %v, want %v", f.name, x[i], y[i], got, ref)
				}
				continue
			case ref == 0 || math.IsInf(ref, 0) || math.Abs(ref) > math.MaxFloat32:
				if r32 := float64(float32(ref)); got != r32 || math.Signbit(got) != math.Signbit(r32) {
					t.Errorf("%s(%v, %v) = %v, want %v", f.name, x[i], y[i], got, r32)
				}
				continue
			}
			u := math.Abs(got-ref) / ulp32(ref)
			ulps = append(ulps, u)
			if u > worst {
				worst, worstAt = u, i
			}
		}
		sort.Float64s(ulps)
		on := fmt.Sprintf("[%g, %g]", f.lo, f.hi)
		if inline {
			on += fmt.Sprintf(", every 4099th float and 2^16 around %g", inlineWorst[f.name])
		}
		table = append(table, fmt.Sprintf("| %s | %.2f | %.2f | %s |", f.name, worst, ulps[len(ulps)*999/1000], on))
		if worst > bound {
			t.Errorf("%s: %.2f ULP at x=%v y=%v (got %v, float64 %v); its bound is %g", f.name, worst, x[worstAt], y[worstAt], z[worstAt], f.ref(float64(x[worstAt]), float64(y[worstAt])), bound)
		}
	}
	t.Logf("\n| function | max ULP | 99.9th percentile ULP | sampled on |\n| --- | --- | --- | --- |\n%s", strings.Join(table, "\n"))
	// every run_ loop is vectorized: one report line per function's loop
	if got := strings.Count(string(out), "loop vectorized"); got < len(vecFuncs) {
		t.Errorf("%d loops vectorized, want %d:\n%s", got, len(vecFuncs), out)
	}
	nm, err := exec.Command("nm", "-D", "--undefined-only", lib).Output()
	if err == nil {
		for _, f := range vecFuncs {
			if _, inline := inlineBound[f.name]; inline {
				if strings.Contains(string(nm), f.name) {
					t.Errorf("%s is called, not inlined:\n%s", f.name, nm)
				}
				continue
			}
			if !strings.Contains(string(nm), "v_"+f.name) {
				t.Errorf("%s: no libmvec vector variant (_ZGV..._%s) is called:\n%s", f.name, f.name, nm)
			}
		}
	}
}

// sample draws from [lo, hi]: log-uniform magnitudes when the range spans
// orders of magnitude, so small arguments are tested as much as large.
func sample(rng *rand.Rand, lo, hi float64) float32 {
	if lo >= 0 && hi/math.Max(lo, 1e-30) > 1e3 {
		l := math.Log(math.Max(lo, 1e-30))
		return float32(math.Exp(l + rng.Float64()*(math.Log(hi)-l)))
	}
	return float32(lo + rng.Float64()*(hi-lo))
}

// ulp32 is the spacing of float32 numbers at |v| (subnormal spacing below
// the smallest normal).
func ulp32(v float64) float64 {
	a := math.Abs(v)
	if a < 0x1p-126 {
		return 0x1p-149
	}
	e := math.Floor(math.Log2(a))
	return math.Ldexp(1, int(e)-23)
}

// The GELU kernels of a training FFN (both forms: gcdbg_erff and
// gcdbg_tanhf inline in their simd loops) divide unmasked: with gcc's
// default -ftrapping-math the division of x * P(x^2) / Q(x^2) was
// zero-masked under the saturation compare (vdivps ...{%k1}{z}: a lane
// that saturates must not raise a spurious FP exception) and the compare
// was computed twice; builds pass -fno-trapping-math (compiler/build.go),
// which changes no value. The values are the eager interpreter's (NaN,
// ±Inf and -0 of the fixture included: checkNumbers). Needs AVX-512 (gcc
// masks only with mask registers); skipped where the loops use no zmm
// division.
func TestErfTanhDivisionUnmasked(t *testing.T) {
	if _, err := exec.LookPath("objdump"); err != nil {
		t.Skip("no objdump")
	}
	u := loadUnits(t, "../runner/testdata/gelu_ffn_train.json")[0]
	saved := interp.Inputs{}
	divs, masked := 0, 0
	for _, lp := range u.Programs {
		src := renderLP(t, u, lp)
		art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := checkNumbers(t, art, u, lp, saved); err != nil || !ok {
			t.Errorf("%s: compiled values differ from the eager interpreter: %v", lp.Role, err)
		}
		out, err := exec.Command("objdump", "-d", "--no-show-raw-insn", art.Library).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "vdivps") && strings.Contains(line, "%zmm") {
				divs++
				if strings.Contains(line, "{z}") {
					masked++
					t.Logf("%s: %s", lp.Role, strings.TrimSpace(line))
				}
			}
		}
	}
	if divs == 0 {
		t.Skip("no zmm division in the GELU programs (no AVX-512)")
	}
	if masked > 0 {
		t.Errorf("%d of %d zmm divisions are zero-masked (trapping math)", masked, divs)
	}
}
