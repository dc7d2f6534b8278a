/* gcdbg generated cuda source: trace softmax.py, graph g0 (inference). Do not edit. */
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

// kernel 0: buf0 reduction, buf1 pointwise, buf2 pointwise, buf3 reduction, buf4 pointwise
// origins: m, sub, e, sum, truediv
extern "C" __global__ void k0_truediv_sum_e(const float *b_arg0_1, float *b_buf4) {
  __shared__ float sh_t0[256];
  __shared__ double sh_t3[256];
  const int64_t lid = ((int64_t)threadIdx.x);
  for (int64_t xo = ((int64_t)blockIdx.x); xo < 8; xo += ((int64_t)gridDim.x)) {
    const int64_t x0 = xo;
    float t0 = (-(float)INFINITY);
    for (int64_t ri = lid; ri < 1024; ri += ((int64_t)blockDim.x)) {
      const int64_t r0 = ri;
      const float t1 = b_arg0_1[(1024*x0 + r0)];
      t0 = (t1 > t0 || t1 != t1) ? t1 : t0;
    }
    sh_t0[lid] = t0;
    __syncthreads();
    for (int s = 128; s >= 32; s >>= 1) {
      if (lid < s) {
        sh_t0[lid] = (sh_t0[lid + s] > sh_t0[lid] || sh_t0[lid + s] != sh_t0[lid + s]) ? sh_t0[lid + s] : sh_t0[lid];
      }
      __syncthreads();
    }
    if (lid < 32) {
      float v = sh_t0[lid];
      for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_down_sync(0xffffffffu, v, o);
        v = (w > v || w != w) ? w : v;
      }
      if (lid == 0) { sh_t0[0] = v; }
    }
    __syncthreads();
    t0 = sh_t0[0];
    __syncthreads();
    const float t2 = ((float)t0);
    double t3 = 0;
    for (int64_t ri = lid; ri < 1024; ri += ((int64_t)blockDim.x)) {
      const int64_t r0 = ri;
      const float t4 = b_arg0_1[(r0 + 1024*x0)];
      const float t5 = (t4 - t2);  // sub
      const float t6 = expf(t5);  // e
      t3 += (double)t6;
    }
    sh_t3[lid] = t3;
    __syncthreads();
    for (int s = 128; s >= 32; s >>= 1) {
      if (lid < s) {
        sh_t3[lid] += sh_t3[lid + s];
      }
      __syncthreads();
    }
    if (lid < 32) {
      double v = sh_t3[lid];
      for (int o = 16; o > 0; o >>= 1) {
        const double w = __shfl_down_sync(0xffffffffu, v, o);
        v += w;
      }
      if (lid == 0) { sh_t3[0] = v; }
    }
    __syncthreads();
    t3 = sh_t3[0];
    __syncthreads();
    const float t7 = ((float)t3);
    for (int64_t ri = lid; ri < 1024; ri += ((int64_t)blockDim.x)) {
      const int64_t r0 = ri;
      const float t8 = b_arg0_1[(r0 + 1024*x0)];
      const float t9 = (t8 - t2);  // sub
      const float t10 = expf(t9);  // e
      const float t11 = (t10 / t7);  // truediv
      b_buf4[(r0 + 1024*x0)] = t11;
    }
  }
}
