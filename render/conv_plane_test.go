package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// im2col and col2im (conv.go, conv_plane.go) against their definition,
// bit for bit, in float and double: col[(c,kh,kw)][oh,ow] is the input at
// (oh*s0 - p0 + kh*d0, ow*s1 - p1 + kw*d1), 0 outside the image; col2im
// sets dX to the sum of the col entries that land on each element, added
// in (kh, kw, oh, ow) order from 0 (what the masked loops and PyTorch's
// col2im add). Inputs hold NaN, ±Inf and -0 (copied through untouched),
// read through a channel and a column stride that are not the dense ones,
// over fixed geometries (3x3 padding 1, padding 0, 16-column chunks and
// remainders, strides, dilation, 1x1, padding past the window, planes too
// big for the stack: the masked loops) and 300 random ones. dX is filled
// with garbage first: col2im must write every element (the memset before
// it is gone). The end-to-end values against PyTorch, forward and both
// backwards: runner's TestConvPlaneMatchesPyTorch.
func TestConvPlaneHelpersExact(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	for _, typ := range []string{"float", "double"} {
		t.Run(typ, func(t *testing.T) {
			src := "#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n#include <stdio.h>\n#include <math.h>\n" +
				convPreludeScratch + convPlanePrelude + convHelpers(typ) + strings.ReplaceAll(convPlaneHarness, "T_", typ)
			dir := t.TempDir()
			c := filepath.Join(dir, "t.c")
			if err := os.WriteFile(c, []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			exe := filepath.Join(dir, "t")
			if out, err := exec.Command("cc", "-O2", "-march=native", "-fno-math-errno", "-fopenmp", "-o", exe, c, "-lm").CombinedOutput(); err != nil {
				t.Fatalf("cc: %v\n%s", err, out)
			}
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=2")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			s := string(out)
			if !strings.Contains(s, "checked ") || strings.Contains(s, "MISMATCH") {
				t.Fatalf("%s", s)
			}
			// both the plane and the masked loops ran, inside and outside a parallel region
			for _, want := range []string{"plane 1", "masked 1", "parallel 1"} {
				if !strings.Contains(s, want) {
					t.Errorf("%s: no geometry took %q", s, want)
				}
			}
		})
	}
}

const convPlaneHarness = `
static uint64_t rng = 88172645463325252ull;
static int64_t rnd(int64_t n) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (int64_t)(rng % (uint64_t)n); }
static int bad, checked, sawPlane, sawMasked, sawPar;
static void check(int64_t CG, int64_t H, int64_t W, int64_t KH, int64_t KW, int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1, int par) {
  const int64_t OH = (H + 2 * p0 - d0 * (KH - 1) - 1) / s0 + 1, OW = (W + 2 * p1 - d1 * (KW - 1) - 1) / s1 + 1;
  if (H + 2 * p0 - d0 * (KH - 1) - 1 < 0 || W + 2 * p1 - d1 * (KW - 1) - 1 < 0) return;
  const int64_t sw = 2, sh = W * sw + 3, sc = H * sh + 5; /* not the dense strides */
  T_ *X = malloc(sizeof(T_) * (size_t)(CG * sc + 1));
  const int64_t ncol = CG * KH * KW * OH * OW;
  T_ *col = malloc(sizeof(T_) * (size_t)(ncol + 1)), *want = malloc(sizeof(T_) * (size_t)(ncol + 1)), *chk = malloc(sizeof(T_) * (size_t)(ncol + 1));
  T_ *dX = malloc(sizeof(T_) * (size_t)(CG * H * W + 1)), *dXw = malloc(sizeof(T_) * (size_t)(CG * H * W + 1));
  for (int64_t i = 0; i < CG * sc + 1; i++) {
    const int64_t r = rnd(40);
    X[i] = r == 0 ? (T_)NAN : r == 1 ? (T_)INFINITY : r == 2 ? -(T_)INFINITY : r == 3 ? -(T_)0 : (T_)(rnd(2001) - 1000) / 37;
  }
  for (int64_t c = 0; c < CG; c++)
    for (int64_t kh = 0; kh < KH; kh++)
      for (int64_t kw = 0; kw < KW; kw++)
        for (int64_t oh = 0; oh < OH; oh++)
          for (int64_t ow = 0; ow < OW; ow++) {
            const int64_t ih = oh * s0 - p0 + kh * d0, iw = ow * s1 - p1 + kw * d1;
            want[(((c * KH + kh) * KW + kw) * OH + oh) * OW + ow] = ih >= 0 && ih < H && iw >= 0 && iw < W ? X[c * sc + ih * sh + iw * sw] : 0;
          }
  int64_t Hp, Wp;
  if (gcdbg_conv_plane(OH, OW, KH, KW, s0, s1, d0, d1, sizeof(T_), &Hp, &Wp)) sawPlane = 1; else sawMasked = 1;
  if (!par && CG * KH * KW * OH * OW > 32768) sawPar = 1;
  for (int64_t i = 0; i < ncol; i++) col[i] = (T_)12345;
  if (par) {
    #pragma omp parallel num_threads(2)
    { if (omp_get_thread_num() == 0) gcdbg_im2col_T_(X, sc, sh, sw, CG, H, W, KH, KW, OH, OW, s0, s1, p0, p1, d0, d1, 0, OH, col); }
  } else gcdbg_im2col_T_(X, sc, sh, sw, CG, H, W, KH, KW, OH, OW, s0, s1, p0, p1, d0, d1, 0, OH, col);
  /* in chunks of output rows (gcdbg_conv_chunk): chunk [oh0, oh1) is the columns of those rows */
  const int64_t chunk = 1 + rnd(OH);
  for (int64_t oh0 = 0; oh0 < OH && !par; oh0 += chunk) {
    const int64_t oh1 = oh0 + chunk < OH ? oh0 + chunk : OH, NR = oh1 - oh0;
    gcdbg_im2col_T_(X, sc, sh, sw, CG, H, W, KH, KW, OH, OW, s0, s1, p0, p1, d0, d1, oh0, oh1, chk);
    for (int64_t r = 0; r < CG * KH * KW; r++)
      if (memcmp(chk + r * NR * OW, want + r * OH * OW + oh0 * OW, sizeof(T_) * (size_t)(NR * OW)) != 0) {
        printf("MISMATCH im2col rows %ld..%ld CG %ld H %ld W %ld K %ldx%ld s %ld,%ld p %ld,%ld d %ld,%ld\n", (long)oh0, (long)oh1, (long)CG, (long)H, (long)W, (long)KH, (long)KW, (long)s0, (long)s1, (long)p0, (long)p1, (long)d0, (long)d1);
        bad++;
        break;
      }
  }
  if (memcmp(col, want, sizeof(T_) * (size_t)ncol) != 0) {
    printf("MISMATCH im2col CG %ld H %ld W %ld K %ldx%ld s %ld,%ld p %ld,%ld d %ld,%ld\n", (long)CG, (long)H, (long)W, (long)KH, (long)KW, (long)s0, (long)s1, (long)p0, (long)p1, (long)d0, (long)d1);
    bad++;
  }
  /* col2im of finite values (a NaN anywhere would hide the order of the additions) */
  for (int64_t i = 0; i < ncol; i++) col[i] = (T_)(rnd(2001) - 1000) / 7;
  for (int64_t i = 0; i < CG * H * W; i++) { dXw[i] = 0; dX[i] = (T_)NAN; }
  for (int64_t c = 0; c < CG; c++)
    for (int64_t kh = 0; kh < KH; kh++)
      for (int64_t kw = 0; kw < KW; kw++)
        for (int64_t oh = 0; oh < OH; oh++)
          for (int64_t ow = 0; ow < OW; ow++) {
            const int64_t ih = oh * s0 - p0 + kh * d0, iw = ow * s1 - p1 + kw * d1;
            if (ih >= 0 && ih < H && iw >= 0 && iw < W) dXw[(c * H + ih) * W + iw] += col[(((c * KH + kh) * KW + kw) * OH + oh) * OW + ow];
          }
  if (par) {
    #pragma omp parallel num_threads(2)
    { if (omp_get_thread_num() == 0) gcdbg_col2im_T_(col, CG, H, W, KH, KW, OH, OW, s0, s1, p0, p1, d0, d1, dX); }
  } else gcdbg_col2im_T_(col, CG, H, W, KH, KW, OH, OW, s0, s1, p0, p1, d0, d1, dX);
  if (memcmp(dX, dXw, sizeof(T_) * (size_t)(CG * H * W)) != 0) {
    printf("MISMATCH col2im CG %ld H %ld W %ld K %ldx%ld s %ld,%ld p %ld,%ld d %ld,%ld\n", (long)CG, (long)H, (long)W, (long)KH, (long)KW, (long)s0, (long)s1, (long)p0, (long)p1, (long)d0, (long)d1);
    bad++;
  }
  checked++;
  free(X); free(col); free(want); free(chk); free(dX); free(dXw);
}
int main(void) {
  /* CG, H, W, KH, KW, s0, s1, p0, p1, d0, d1 */
  static const int64_t fixed[][11] = {
    {64, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1}, {3, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1}, {4, 13, 37, 3, 3, 1, 1, 1, 1, 1, 1},
    {8, 13, 37, 3, 3, 1, 1, 0, 0, 1, 1}, {8, 11, 35, 3, 3, 2, 2, 1, 1, 1, 1}, {6, 6, 18, 3, 3, 2, 1, 1, 1, 1, 1},
    {2, 3, 18, 3, 3, 1, 1, 2, 2, 2, 2}, {6, 9, 9, 3, 2, 1, 1, 2, 0, 1, 1}, {4, 13, 37, 1, 1, 1, 1, 0, 0, 1, 1},
    {2, 5, 5, 3, 3, 1, 1, 4, 3, 1, 1}, {1, 7, 33, 5, 5, 3, 1, 2, 2, 1, 2}, {1, 130, 128, 3, 3, 1, 1, 1, 1, 1, 1},
    {2, 140, 131, 3, 3, 2, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1}, {3, 17, 16, 3, 3, 1, 1, 1, 1, 1, 1},
  };
  for (unsigned i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    for (int par = 0; par < 2; par++) {
      const int64_t *g = fixed[i];
      check(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], par);
    }
  for (int i = 0; i < 300; i++)
    check(1 + rnd(5), 1 + rnd(40), 1 + rnd(40), 1 + rnd(5), 1 + rnd(5), 1 + rnd(3), 1 + rnd(3), rnd(4), rnd(4), 1 + rnd(3), 1 + rnd(3), (int)rnd(2));
  printf("checked %d, plane %d, masked %d, parallel %d, %d bad\n", checked, sawPlane, sawMasked, sawPar, bad);
  return 0;
}
`
