package render

// The fixed text at the top of a generated file. Everything here is
// constant: nothing from a trace is ever pasted into it.

const cPrelude = `#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A data-dependent load (gather, index_select, indexing) whose element
   lies outside its buffer: an index out of range. Name the node and stop
   the worker (the parent reports the kernel and this line) rather than
   read memory the program does not own. */
static inline void gcdbg_oob(const char *node, const char *buf, int64_t at, int64_t size) {
  fprintf(stderr, "gcdbg: index out of bounds in node %s: %lld for %s, whose size is %lld\n",
          node, (long long)at, buf, (long long)size);
  fflush(stderr);
  abort();
}

/* Vector variants of libm (glibc's libmvec) so that gcc vectorizes loops
   that call sinf/expf without -ffast-math (glibc's math.h declares them
   only under __FAST_MATH__); the builder defines GCDBG_MVEC and links
   -lmvec only when the library exists. glibc 2.35 added the rest of the
   set (tanh, erf, log1p, ...). Accuracy in ULP against float64, measured
   per function: docs/performance.md (compiler's TestVectorMathULP). */
#if defined(GCDBG_MVEC) && defined(__x86_64__) && defined(__GNUC__)
#define GCDBG_SIMD __attribute__((__simd__("notinbranch")))
GCDBG_SIMD float sinf(float);
GCDBG_SIMD float cosf(float);
GCDBG_SIMD float expf(float);
GCDBG_SIMD float logf(float);
GCDBG_SIMD float powf(float, float);
GCDBG_SIMD double sin(double);
GCDBG_SIMD double cos(double);
GCDBG_SIMD double exp(double);
GCDBG_SIMD double log(double);
GCDBG_SIMD double pow(double, double);
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
GCDBG_SIMD float tanf(float);
GCDBG_SIMD float tanhf(float);
GCDBG_SIMD float sinhf(float);
GCDBG_SIMD float coshf(float);
GCDBG_SIMD float asinf(float);
GCDBG_SIMD float acosf(float);
GCDBG_SIMD float atanf(float);
GCDBG_SIMD float asinhf(float);
GCDBG_SIMD float acoshf(float);
GCDBG_SIMD float atanhf(float);
GCDBG_SIMD float erff(float);
GCDBG_SIMD float erfcf(float);
GCDBG_SIMD float expm1f(float);
GCDBG_SIMD float exp2f(float);
GCDBG_SIMD float log1pf(float);
GCDBG_SIMD float log2f(float);
GCDBG_SIMD float log10f(float);
GCDBG_SIMD float atan2f(float, float);
GCDBG_SIMD double tan(double);
GCDBG_SIMD double tanh(double);
GCDBG_SIMD double sinh(double);
GCDBG_SIMD double cosh(double);
GCDBG_SIMD double asin(double);
GCDBG_SIMD double acos(double);
GCDBG_SIMD double atan(double);
GCDBG_SIMD double asinh(double);
GCDBG_SIMD double acosh(double);
GCDBG_SIMD double atanh(double);
GCDBG_SIMD double erf(double);
GCDBG_SIMD double erfc(double);
GCDBG_SIMD double expm1(double);
GCDBG_SIMD double exp2(double);
GCDBG_SIMD double log1p(double);
GCDBG_SIMD double log2(double);
GCDBG_SIMD double log10(double);
GCDBG_SIMD double atan2(double, double);
#endif
#endif

/* Python's floor division and modulo; a zero divisor gives 0 (C would trap). */
static inline int64_t gcdbg_floordiv_i64(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t gcdbg_mod_i64(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int64_t gcdbg_pow_i64(int64_t b, int64_t e) {
  if (e < 0) return b == 1 ? 1 : (b == -1 ? ((e & 1) ? -1 : 1) : 0);
  int64_t r = 1;
  while (e > 0) { if (e & 1) r *= b; b *= b; e >>= 1; }
  return r;
}
/* Floating floor division and remainder as PyTorch's CPU kernels compute
   them (tensor.floorDivF / remF for the interpreter): through fmod, so that
   neither a rounded quotient (1 // 0.1 is 9, not floor(1 / 0.1) = 10) nor
   one that overflows (x % 1e-38) changes the result. */
#define GCDBG_FLOAT_DIVMOD(T, S, FMOD, FLOOR, COPYSIGN) \
static inline T gcdbg_floordiv##S(T a, T b) { \
  if (b == 0) return a / b; \
  T mod = FMOD(a, b), div = (a - mod) / b; \
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1; \
  if (div == 0) return COPYSIGN((T)0, a / b); \
  T fd = FLOOR(div); \
  return (div - fd > (T)0.5) ? fd + 1 : fd; \
} \
static inline T gcdbg_remainder##S(T a, T b) { \
  T m = FMOD(a, b); \
  return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m; \
}
GCDBG_FLOAT_DIVMOD(float, f, fmodf, floorf, copysignf)
GCDBG_FLOAT_DIVMOD(double, , fmod, floor, copysign)
static inline double gcdbg_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
`

const gpuPrelude = `#include <stdint.h>
__device__ inline int64_t gcdbg_floordiv_i64(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ inline int64_t gcdbg_mod_i64(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__device__ inline int64_t gcdbg_pow_i64(int64_t b, int64_t e) {
  if (e < 0) return b == 1 ? 1 : (b == -1 ? ((e & 1) ? -1 : 1) : 0);
  int64_t r = 1;
  while (e > 0) { if (e & 1) r *= b; b *= b; e >>= 1; }
  return r;
}
`

const clPrelude = `#pragma OPENCL EXTENSION cl_khr_fp64 : enable
inline long gcdbg_floordiv_i64(long a, long b) {
  if (b == 0) return 0;
  long q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline long gcdbg_mod_i64(long a, long b) {
  if (b == 0) return 0;
  long r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
inline long gcdbg_pow_i64(long b, long e) {
  if (e < 0) return b == 1 ? 1 : (b == -1 ? ((e & 1) ? -1 : 1) : 0);
  long r = 1;
  while (e > 0) { if (e & 1) r *= b; b *= b; e >>= 1; }
  return r;
}
`
