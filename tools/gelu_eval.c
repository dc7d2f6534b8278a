/* Float evaluation of gcdbg_gelu_erff / gcdbg_gelu_tanhf (render/gelu.go)
   for tools/fit_gelu.py: the same operations in the same order (x*x,
   x*0.5f, Horner in fmaf over x^2, h * fma(x, p / q, 1); from the
   saturation on h * (1 + copysign(1, x))), compared with GELU in double.
   Built by the script with -O2 -ffp-contract=off (every FMA is explicit,
   as in the prelude). fn 0: GELU with erf; 1: GELU with tanh. */
#include <math.h>
#include <stdint.h>
#include <string.h>

static float ev(float x, const float *p, int np, const float *q, int nq, float sat) {
  float s = x * x, h = x * 0.5f;
  float a = p[0];
  for (int i = 1; i < np; i++) a = fmaf(a, s, p[i]);
  float b = q[0] == 1.0f && nq > 1 ? s + q[1] : q[0];
  for (int i = q[0] == 1.0f && nq > 1 ? 2 : 1; i < nq; i++) b = fmaf(b, s, q[i]);
  return s >= sat ? h * (1.0f + copysignf(1.0f, x)) : h * fmaf(x, a / b, 1.0f);
}

/* GELU in double: 0.5 x erfc(-x / sqrt 2), and x / (1 + exp(-2u)) for the
   tanh form (1 + tanh(u) without its cancellation) */
static double gelu(int fn, double x) {
  if (fn == 0) return 0.5 * x * erfc(-x / sqrt(2.0));
  double u = sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}

/* the function approximated by e: erf(x / sqrt 2) or tanh(u) */
static double target(int fn, double x) {
  if (fn == 0) return erf(x / sqrt(2.0));
  return tanh(sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x));
}

/* the decomposed graph's own float evaluation (PyTorch's formula) with
   erf and tanh correctly rounded */
static float formula(int fn, float x) {
  if (fn == 0) return (x * 0.5f) * ((float)erf((double)(x * 0.70710677f)) + 1.0f);
  float inner = (x + ((x * x) * x) * 0.044715f) * 0.7978846f;
  return (x * 0.5f) * ((float)tanh((double)inner) + 1.0f);
}

static double ulp32(double v) {
  double a = fabs(v);
  if (a < 0x1p-126) return 0x1p-149;
  int e;
  frexp(a, &e);
  return ldexp(1.0, e - 1 - 23);
}

/* the error in ULPs of max(|gelu(x)|, |x| / 2): the scale of the result,
   and in the negative tail that of x / 2, where 1 + erf cancels */
static double err(int fn, float x, float got) {
  double ref = gelu(fn, (double)x);
  double scale = fmax(fabs(ref), 0.5 * fabs((double)x));
  return fabs((double)got - ref) / ulp32(scale);
}

void targets(int fn, const double *xs, double *out, int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = target(fn, xs[i]);
}

/* max error over xs; *at = index of the worst */
double maxerr(int fn, const float *xs, int64_t n, const float *p, int np, const float *q, int nq, float sat, int64_t *at) {
  double w = 0;
  int64_t wi = -1;
  if (sat <= 0) sat = INFINITY;
  for (int64_t i = 0; i < n; i++) {
    double e = err(fn, xs[i], ev(xs[i], p, np, q, nq, sat));
    if (!(e <= w)) { w = e; wi = i; }
  }
  *at = wi;
  return w;
}

/* every float bit pattern in [lo, hi): out[0] max error, out[1] its x,
   out[2] mean, out[3] max of the formula's error, out[4] its x, out[5]
   count of bad specials (NaN where the formula gives none or the reverse,
   an infinity or a zero that differs from the formula's, sign included),
   out[6] count */
void sweep(int fn, uint32_t lo, uint32_t hi, const float *p, int np, const float *q, int nq, float sat, double *out) {
  double w = 0, wx = 0, sum = 0, fw = 0, fwx = 0, bad = 0, cnt = 0;
  for (uint64_t b = lo; b < hi; b++) {
    uint32_t bb = (uint32_t)b;
    float x;
    memcpy(&x, &bb, 4);
    float got = ev(x, p, np, q, nq, sat), want = formula(fn, x);
    if (isnan(got) != isnan(want) || ((isinf(got) || isinf(want)) && got != want) ||
        (got == 0 && want == 0 && signbit(got) != signbit(want)))
      bad++;
    if (isnan(x) || isinf(x)) continue;
    double e = err(fn, x, got), f = err(fn, x, want);
    if (e > w) { w = e; wx = x; }
    if (f > fw) { fw = f; fwx = x; }
    sum += e;
    cnt++;
  }
  out[0] = w; out[1] = wx; out[2] = sum; out[3] = fw; out[4] = fwx; out[5] = bad; out[6] = cnt;
}
