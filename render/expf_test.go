package render_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gcdbg/render"
)

// gcdbg_expf (expf.go) against exp in double over a sweep of float bit
// patterns (every 4099th: denormals, the overflow and underflow edges)
// and the special values: at most 1.25 ULP (1.24 over all 2^32 floats),
// exp(-Inf) = +0, exp(+Inf) = +Inf, NaN -> NaN, exp(±0) = 1, exp of
// 88.73 and beyond overflows, of -103.98 and below is +0; gcc vectorizes
// the loop that calls it.
func TestMaskedExpfULP(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	src := render.C.Prelude + `
#include <string.h>
#define N 4096
static float in[N], out[N];
static void run(int n) {
  #pragma omp simd
  for (int i = 0; i < n; i++) out[i] = gcdbg_expf(in[i]);
}
static double ulps(float got, float x) {
  double want = exp((double)x);
  if (want != want) return got != got ? 0 : 1e9;
  float wf = (float)want;
  if (isinf(wf)) return got == wf ? 0 : 1e9;
  int e; frexp(want, &e);
  double ulp = ldexp(1.0, e - 24);
  if (ulp < ldexp(1.0, -149)) ulp = ldexp(1.0, -149);
  return fabs((double)got - want) / ulp;
}
int main(void) {
  double worst = 0; long bad = 0;
  uint64_t b = 0;
  while (b < (1ull << 32)) {
    int n = 0;
    for (; n < N && b < (1ull << 32); n++, b += 4099) { uint32_t u = (uint32_t)b; memcpy(&in[n], &u, 4); }
    run(n);
    for (int i = 0; i < n; i++) { double e = ulps(out[i], in[i]); if (e > worst) worst = e; }
  }
  float sp[] = {-INFINITY, INFINITY, NAN, 0.0f, -0.0f, 88.72f, 88.73f, 89.0f, 1e30f, -103.9f, -103.98f, -104.0f, -1e30f, -87.5f, 1.0f};
  int ns = sizeof sp / sizeof sp[0];
  memcpy(in, sp, sizeof sp);
  run(ns);
  for (int i = 0; i < ns; i++) {
    float x = sp[i], y = out[i];
    int ok = ulps(y, x) <= 1.25;
    if (x == -INFINITY || x <= -103.98f) ok = ok && y == 0 && !signbit(y);
    if (x == INFINITY || x >= 88.73f) ok = ok && isinf(y) && y > 0;
    if (x != x) ok = y != y;
    if (x == 0) ok = y == 1;
    if (!ok) { printf("special %a -> %a\n", x, y); bad++; }
  }
  printf("worst %.4f bad %ld\n", worst, bad);
  return 0;
}
`
	c := filepath.Join(dir, "t.c")
	if err := os.WriteFile(c, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "t")
	out, err := exec.Command("cc", "-O3", "-march=native", "-fno-math-errno", "-fno-tree-pre", "-fopenmp", "-fopt-info-vec-optimized",
		"-o", exe, c, "-lm").CombinedOutput()
	if err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	line := strings.Count(src[:strings.Index(src, "for (int i = 0; i < n; i++) out[i] = gcdbg_expf")], "\n") + 1
	if !strings.Contains(string(out), "t.c:"+strconv.Itoa(line)+":") || !strings.Contains(string(out), "loop vectorized") {
		t.Errorf("the gcdbg_expf loop (line %d) is not vectorized:\n%s", line, out)
	}
	res, err := exec.Command(exe).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, res)
	}
	var worst float64
	var bad int
	for _, l := range strings.Split(string(res), "\n") {
		if f := strings.Fields(l); len(f) == 4 && f[0] == "worst" {
			worst, _ = strconv.ParseFloat(f[1], 64)
			bad, _ = strconv.Atoi(f[3])
		}
	}
	if worst > 1.25 || bad != 0 || !strings.Contains(string(res), "worst") {
		t.Errorf("gcdbg_expf: worst %.4f ULP (want <= 1.25), %d special values wrong:\n%s", worst, bad, res)
	}
	t.Logf("gcdbg_expf: worst %.4f ULP over the sweep", worst)
}

// The causal mask's softmax takes gcdbg_expf; an unmasked softmax keeps
// libmvec's expf.
func TestMaskedExpChosen(t *testing.T) {
	for path, want := range map[string]bool{"../fixtures/transformer_block.json": true, "../fixtures/mlp_logsoftmax_sort.json": false} {
		units := loadUnits(t, path)
		got := false
		for _, lp := range units[0].Programs {
			src := renderLP(t, units[0], lp, render.C, render.Options{})
			got = got || strings.Contains(src.Code, "= gcdbg_expf(")
		}
		if got != want {
			t.Errorf("%s: gcdbg_expf used %v, want %v", path, got, want)
		}
	}
}
