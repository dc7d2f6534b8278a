/* gcdbg generated cuda source: trace sin_cos.json, graph g0 (inference). Do not edit. */
typedef long long int64_t;
typedef int int32_t;
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
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

/* Philox4x32-10 (Salmon et al. 2011): gcdbg's counter-based generator for
   random ops without recorded draws (tensor.PhiloxUniform). */
__device__ inline double gcdbg_philox_uniform(double seed_d, double ctr_d) {
  const uint64_t seed = (uint64_t)seed_d, c = (uint64_t)ctr_d;
  uint32_t c0 = (uint32_t)c, c1 = (uint32_t)(c >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
  }
  return (double)(c0 >> 8) * (1.0 / 16777216.0);
}

// kernel 0: buf0 pointwise, buf1 pointwise
// origins: sin, cos
// File: sin_cos.py:8, code: y = x.sin()
// File: sin_cos.py:9, code: z = y.cos()
extern "C" __global__ void k0_cos_sin(const float *b_arg0_1, float *b_buf0, float *b_buf1) {
  for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x); i < 8192; i += ((int64_t)gridDim.x * blockDim.x)) {
    const int64_t x0 = (i / 128);
    const int64_t x1 = (i % 128);
    const float t0 = b_arg0_1[(x1 + 128*x0)];
    const float t1 = sinf(t0);  // sin
    b_buf0[(x1 + 128*x0)] = t1;
    const float t2 = cosf(t1);  // cos
    b_buf1[(x1 + 128*x0)] = t2;
  }
}
