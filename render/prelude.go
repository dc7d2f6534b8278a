package render

// The fixed text at the top of a generated file. Everything here is
// constant: nothing from a trace is ever pasted into it.

const cPrelude = `#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Vector variants of libm (glibc's libmvec) so that gcc vectorizes loops
   that call sinf/expf without -ffast-math; the builder defines GCDBG_MVEC
   and links -lmvec only when the library exists. */
#if defined(GCDBG_MVEC) && defined(__x86_64__) && defined(__GNUC__)
#define GCDBG_SIMD __attribute__((__simd__("notinbranch")))
GCDBG_SIMD float sinf(float);
GCDBG_SIMD float cosf(float);
GCDBG_SIMD float expf(float);
GCDBG_SIMD float logf(float);
GCDBG_SIMD double sin(double);
GCDBG_SIMD double cos(double);
GCDBG_SIMD double exp(double);
GCDBG_SIMD double log(double);
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
