package compiler_test

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"gcdbg/compiler"
	"gcdbg/interp"
	"gcdbg/loopir"
)

// The row reductions of testdata/vector_reductions.json (amax, amin, sum,
// mean, softmax, log_softmax, layer_norm over rows of 2500 float32 with
// NaN, ±Inf, -0, large magnitudes; integer sum/amax/amin) are vector
// loops in the generated C, and gcc reports every one of them vectorized
// (-fopt-info-vec-optimized names the loop's line or its first statement).
func TestVectorReductionsVectorize(t *testing.T) {
	u := loadUnits(t, "testdata/vector_reductions.json")[0]
	src := renderLP(t, u, u.Programs[0])
	for _, want := range []string{"reduction(max:", "reduction(min:", "reduction(+:", "reduction(|:"} {
		if !strings.Contains(src.Code, want) {
			t.Errorf("the generated C has no %q:\n%s", want, src.Code)
		}
	}
	art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
	if err != nil {
		t.Fatal(err)
	}
	loops := checkSimdLoopsVectorized(t, src.Code, art.VecReport)
	// one fused float kernel of three passes (max/min/sums; the sums
	// after the max; the normalized rows) and the integer kernel
	if loops != 4 {
		t.Errorf("%d simd loops, want 4 (one per reduce pass)", loops)
	}
	if !regexp.MustCompile(`// reduce loop vectorized \(omp simd reduction, no -ffast-math\)`).MatchString(src.Code) {
		t.Error("no kernel comment says its reduce loop is vectorized")
	}
}

// checkSimdLoopsVectorized fails t for every `#pragma omp simd` loop of
// code (not the parallel-for ones) that gcc's -fopt-info-vec-optimized
// report does not name vectorized; it returns how many there are.
func checkSimdLoopsVectorized(t *testing.T, code, report string) int {
	t.Helper()
	lines := strings.Split(code, "\n")
	loops := 0
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "#pragma omp simd") || strings.Contains(l, "parallel") {
			continue
		}
		if f := enclosingStatic(lines, i); f != "" && strings.Count(code, f+"(") == 1 {
			continue // a prelude helper this program never calls: gcc drops it unread
		}
		loops++
		loop := i + 2 // 1-based line of the for statement after the pragma
		ok := false
		for _, r := range strings.Split(report, "\n") {
			for ln := loop; ln <= loop+8; ln++ { // gcc names the loop, its first statement or its first load
				if strings.HasPrefix(r, fmt.Sprintf("kernel.c:%d:", ln)) && strings.Contains(r, "loop vectorized") {
					ok = true
				}
			}
		}
		if !ok {
			t.Errorf("the simd loop at line %d is not reported vectorized:\n%s\n--- report:\n%s", loop, strings.Join(lines[i:min(i+8, len(lines))], "\n"), report)
		}
	}
	return loops
}

var funcName = regexp.MustCompile(`(\w+)\(`)

// enclosingStatic is the name of the static function whose body holds
// line i ("" when none: a kernel's loops are always compiled).
func enclosingStatic(lines []string, i int) string {
	for j := i; j >= 0; j-- {
		l := lines[j]
		if l == "}" {
			return ""
		}
		if strings.HasPrefix(l, "static ") {
			for _, m := range funcName.FindAllStringSubmatch(l, -1) {
				if !strings.HasPrefix(m[1], "__") { // not __attribute__((...))
					return m[1]
				}
			}
		}
	}
	return ""
}

// The vector loops compute what PyTorch computed: NaN and ±Inf exactly
// where PyTorch has them (max/min propagate a NaN anywhere in the row,
// also in the tail after the last full vector; +Inf + -Inf sums to NaN),
// max/min and integer sums exactly, and the float sums within a few
// float32 roundings of PyTorch's.
func TestVectorReductionsMatchPyTorch(t *testing.T) {
	u := loadUnits(t, "testdata/vector_reductions.json")[0]
	lp := u.Programs[0]
	src := renderLP(t, u, lp)
	art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	inputs := loopir.InputsFromGraph(lp.Loops)
	got, err := runLib(art, inputs)
	if err != nil {
		t.Fatal(err)
	}
	// sumAbs[row] = Σ|x| over the row's finite values: the scale of a
	// float sum's rounding error.
	var sumAbs [10]float64
	for _, x := range inputs {
		if x.DType.IsFloat() && x.Numel() == 25000 {
			for i := 0; i < x.Numel(); i++ {
				if v := math.Abs(x.Flat(i)); !math.IsInf(v, 0) && !math.IsNaN(v) {
					sumAbs[i/2500] += v
				}
			}
		}
	}
	want := u.Captured.Expected.Outputs
	if len(got) != len(want) {
		t.Fatalf("%d outputs, PyTorch has %d", len(got), len(want))
	}
	names := []string{"amax", "amin", "sum", "mean", "softmax", "log_softmax", "layer_norm", "int sum", "int amax", "int amin"}
	for o := range want {
		w, g := want[o].Contiguous(), got[o]
		if w.Numel() != g.Numel() {
			t.Fatalf("%s: %d elements, PyTorch has %d", names[o], g.Numel(), w.Numel())
		}
		exact := o <= 1 || o >= 7
		cols := w.Numel() / 10
		for i := 0; i < w.Numel(); i++ {
			a, b := g.Flat(i), w.Flat(i)
			row := i / cols
			switch {
			case math.IsNaN(b) || math.IsNaN(a):
				if math.IsNaN(a) != math.IsNaN(b) {
					t.Errorf("%s[%d] (row %d) = %v, PyTorch %v", names[o], i, row, a, b)
				}
			case math.IsInf(b, 0) || math.IsInf(a, 0) || exact:
				if a != b {
					t.Errorf("%s[%d] (row %d) = %v, PyTorch %v", names[o], i, row, a, b)
				}
			default:
				// sum, mean: a few float32 roundings of Σ|x|; the normalized
				// rows: of the row's largest value (layer_norm's mean is a
				// rounded float32 sum divided by N in both)
				tol := 0.0
				switch names[o] {
				case "sum":
					tol = 1e-6 * sumAbs[row]
				case "mean":
					tol = 1e-6 * sumAbs[row] / 2500
				default:
					scale := 0.0
					for j := row * cols; j < (row+1)*cols; j++ {
						if v := math.Abs(w.Flat(j)); !math.IsInf(v, 0) && !math.IsNaN(v) {
							scale = math.Max(scale, v)
						}
					}
					tol = 1e-5 * math.Max(math.Abs(b), scale)
				}
				if math.Abs(a-b) > tol {
					t.Errorf("%s[%d] (row %d) = %v, PyTorch %v (tolerance %v)", names[o], i, row, a, b, tol)
				}
			}
		}
	}
}

// The MLP's bias gradients (sums over the batch rows of [8, 512]) are
// column reductions: blocks of columns, a vector loop over a block's
// columns per row (render/colreduce.go). gcc reports those loops
// vectorized and the backward computes what the eager interpreter does
// (the runner's fixture test compares it with PyTorch's grads).
func TestColumnReductionVectorized(t *testing.T) {
	if len(columnReductions(t, "../fixtures/mlp.json")) == 0 {
		t.Error("no column reduction in the MLP's programs")
	}
}

// cross_entropy over a [B, C, T] logit tensor (a WaveNet's per-sample
// classes, runner/testdata/relu_flip_wavenet.json: B8, C256, T512) sums
// each position's exponentials along C, T floats apart: a column
// reduction, although the kernel stores the targets' ignore mask before
// the sum (a member the sum does not read). Before, it was a scalar loop
// reading one float per cache line: 25.6 ms, 2.65 GB/s at B8 x T4096.
func TestCrossEntropyOverChannelsIsAColumnReduction(t *testing.T) {
	ks := columnReductions(t, "../runner/testdata/relu_flip_wavenet.json")
	found := false
	for _, k := range ks {
		found = found || strings.Contains(k, "cross_entropy_neg")
	}
	if !found {
		t.Errorf("cross_entropy's class sum is no column reduction; column reductions: %v", ks)
	}
}

// columnReductions builds every program of the trace's first unit, checks
// their values against the eager interpreter and that each column
// reduction's column loop is reported vectorized, and returns the column
// reductions' kernel declarations.
func columnReductions(t *testing.T, path string) []string {
	t.Helper()
	u := loadUnits(t, path)[0]
	saved := interp.Inputs{}
	var found []string
	for _, lp := range u.Programs {
		src := renderLP(t, u, lp)
		art, err := compiler.Build(src.Program(), compiler.Options{CacheDir: t.TempDir(), VecReport: true})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := checkNumbers(t, art, u, lp, saved); err != nil || !ok {
			t.Fatalf("%s: compiled values differ from the eager interpreter: %v", lp.Role, err)
		}
		lines := strings.Split(src.Code, "\n")
		for i, l := range lines {
			if !strings.Contains(l, "column reduction: blocks of") {
				continue
			}
			if i+1 < len(lines) {
				found = append(found, lines[i+1])
			}
			simd := 0
			for j := i; j < len(lines) && !strings.HasPrefix(lines[j], "}"); j++ {
				if strings.TrimSpace(lines[j]) == "#pragma omp simd" {
					simd = j + 2
					break
				}
			}
			ok := false
			for _, r := range strings.Split(art.VecReport, "\n") {
				for ln := simd; ln <= simd+3; ln++ {
					if strings.HasPrefix(r, fmt.Sprintf("kernel.c:%d:", ln)) && strings.Contains(r, "loop vectorized") {
						ok = true
					}
				}
			}
			if simd == 0 || !ok {
				t.Errorf("%s: the column loop at line %d is not reported vectorized", lp.Role, simd)
			}
		}
	}
	return found
}
