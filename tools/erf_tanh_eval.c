/* Float evaluation of gcdbg_erff / gcdbg_tanhf (render/erf_tanh.go) for
   tools/fit_erf_tanh.py: the same operations in the same order (x*x, Horner
   in fmaf, x * (p / q), copysign(1, x) where x*x >= sat), compared with
   glibc's erf and tanh in double. Built by the script with -O2
   -ffp-contract=off (every FMA is explicit, as in the prelude). */
#include <math.h>
#include <stdint.h>
#include <string.h>

static float ev(float x, const float *p, int np, const float *q, int nq, float sat) {
  float t = x * x;
  float a = p[0];
  for (int i = 1; i < np; i++) a = fmaf(a, t, p[i]);
  float b = q[0];
  for (int i = 1; i < nq; i++) b = fmaf(b, t, q[i]);
  float r = x * (a / b);
  return t >= sat ? copysignf(1.0f, x) : r;
}

static double ulp32(double v) {
  double a = fabs(v);
  if (a < 0x1p-126) return 0x1p-149;
  int e;
  frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  return ldexp(1.0, e - 1 - 23);
}

/* refs of xs[0..n) in double (fn 0 = erf, 1 = tanh) */
void refs(int fn, const float *xs, double *ref, int64_t n) {
  for (int64_t i = 0; i < n; i++) ref[i] = fn ? tanh((double)xs[i]) : erf((double)xs[i]);
}

/* max ULP error over xs (refs precomputed); *at = index of the worst;
   the rational only (sat = +inf) when sat <= 0 */
double maxerr(const float *xs, const double *ref, int64_t n, const float *p, int np, const float *q, int nq,
              float sat, int64_t *at) {
  double w = 0;
  int64_t wi = -1;
  if (sat <= 0) sat = INFINITY;
  for (int64_t i = 0; i < n; i++) {
    double e = fabs((double)ev(xs[i], p, np, q, nq, sat) - ref[i]) / ulp32(ref[i]);
    if (!(e <= w)) { w = e; wi = i; }
  }
  *at = wi;
  return w;
}

/* the first positive float where the rational in float exceeds 1 (the
   smallest such float's bits), scanning bits [lo, hi); 0 if none */
uint32_t first_overshoot(uint32_t lo, uint32_t hi, const float *p, int np, const float *q, int nq) {
  for (uint32_t b = lo; b < hi; b++) {
    float x;
    memcpy(&x, &b, 4);
    if (ev(x, p, np, q, nq, INFINITY) > 1.0f) return b;
  }
  return 0;
}

/* every float: out[0] max ULP, out[1] its x, out[2] mean ULP, out[3..5]
   counts above 1, 2, 4 ULP, out[6] count of bad specials (NaN not NaN,
   wrong sign, |f| > 1, f(+-Inf) != +-1, tiny tanh(x) != x), over the bit
   patterns [lo, hi) (both signs are done for each) */
void sweep(int fn, uint32_t lo, uint32_t hi, const float *p, int np, const float *q, int nq, float sat, double *out) {
  double w = 0, wx = 0, sum = 0;
  double c1 = 0, c2 = 0, c4 = 0, bad = 0, cnt = 0;
  for (uint64_t b = lo; b < hi; b++) {
    for (int s = 0; s < 2; s++) {
      uint32_t bits = (uint32_t)b | (s ? 0x80000000u : 0);
      float x;
      memcpy(&x, &bits, 4);
      float r = ev(x, p, np, q, nq, sat);
      if (isnan(x)) {
        if (!isnan(r)) bad++;
        continue;
      }
      if (isinf(x)) {
        if (r != copysignf(1.0f, x)) bad++;
        continue;
      }
      if (signbit(r) != signbit(x) || fabsf(r) > 1.0f) bad++;
      if (fn == 1 && fabsf(x) < 0x1p-12f && r != x) bad++;
      double ref = fn ? tanh((double)x) : erf((double)x);
      double e;
      if (ref == 0) {
        e = (r == 0 && signbit(r) == signbit(x)) ? 0 : 1e9;
      } else {
        e = fabs((double)r - ref) / ulp32(ref);
      }
      sum += e;
      cnt++;
      if (e > 1) c1++;
      if (e > 2) c2++;
      if (e > 4) c4++;
      if (e > w) { w = e; wx = x; }
    }
  }
  out[0] = w; out[1] = wx; out[2] = sum; out[3] = c1; out[4] = c2; out[5] = c4; out[6] = bad; out[7] = cnt;
}
